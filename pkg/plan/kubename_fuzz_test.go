package plan

import (
	"net/url"
	"strings"
	"testing"

	k8s "k8s.io/apimachinery/pkg/util/validation"
)

// FuzzKubeNames holds the name parsers to Kubernetes's own validators
// (k8s.io/apimachinery/pkg/util/validation): each accepts exactly what
// Kubernetes accepts, and whatever passes names one path segment: no
// '/', '?' or '#', unchanged by path escaping.
func FuzzKubeNames(f *testing.F) {
	for _, s := range []string{"default", "victim?", "default/secrets#", "a.b", "a..b", "A", "-a", "a-", "1", "kubernetes.io/os",
		"x/y/z", "/x", "é", "a_b", "a%2f", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 127)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := ParseNamespace(s)
		if s != "" && (err == nil) != (len(k8s.IsDNS1123Label(s)) == 0) {
			t.Fatalf("ParseNamespace(%q) = %v; Kubernetes says %v", s, err, k8s.IsDNS1123Label(s))
		}
		if err == nil {
			segment(t, ns.String())
		}
		on, err := ParseObjectName(s)
		if (err == nil) != (len(k8s.IsDNS1123Subdomain(s)) == 0) {
			t.Fatalf("ParseObjectName(%q) = %v; Kubernetes says %v", s, err, k8s.IsDNS1123Subdomain(s))
		}
		if err == nil {
			segment(t, on.String())
		}
		if got, want := labelName(s) == "", len(k8s.IsValidLabelValue(s)) == 0; got != want {
			t.Fatalf("label value %q: valid %v; Kubernetes says %v", s, got, k8s.IsValidLabelValue(s))
		}
		if got, want := CheckLabel(s, "v") == nil, len(k8s.IsQualifiedName(s)) == 0; got != want {
			t.Fatalf("label key %q: valid %v; Kubernetes says %v", s, got, k8s.IsQualifiedName(s))
		}
	})
}

// segment fails unless name, pasted into a path, stays one segment.
func segment(t *testing.T, name string) {
	t.Helper()
	if strings.ContainsAny(name, "/?#%") || url.PathEscape(name) != name {
		t.Fatalf("valid name %q does not stay one path segment", name)
	}
	u, err := url.Parse("/api/v1/namespaces/" + name + "/secrets")
	if err != nil || u.RawQuery != "" || u.Fragment != "" || u.Path != "/api/v1/namespaces/"+name+"/secrets" {
		t.Fatalf("path of %q parses as %+v (%v)", name, u, err)
	}
}
