package plan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseNamespace: only RFC 1123 labels pass; the hostile values of a
// path ("?", "#", "/") and anything Kubernetes refuses fail.
func TestParseNamespace(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"default", true}, {"authbench", true}, {"load-1", true}, {"1abc", true}, {"a", true},
		{strings.Repeat("a", 63), true}, {"", true},
		{strings.Repeat("a", 64), false}, {"victim?", false}, {"default/secrets#", false},
		{"default/secrets", false}, {"..", false}, {"a.b", false}, {"Default", false}, {"-a", false},
		{"a-", false}, {"a b", false}, {"a%2Fb", false}, {"ns\n", false}, {"é", false},
	} {
		n, err := ParseNamespace(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseNamespace(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "not a valid Kubernetes namespace: ") {
			t.Errorf("ParseNamespace(%q): %v does not say what it is not", tc.in, err)
		}
		if err == nil && n.String() != tc.in {
			t.Errorf("ParseNamespace(%q) = %q", tc.in, n)
		}
	}
}

// TestParseObjectName: RFC 1123 subdomains pass.
func TestParseObjectName(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"authbench-1a2b3c4d", true}, {"a.b.c", true}, {"0", true}, {strings.Repeat("a.", 126) + "a", true},
		{"", false}, {strings.Repeat("a", 254), false}, {"a..b", false}, {".a", false}, {"a.", false},
		{"a/b", false}, {"a?", false}, {"a#", false}, {"A", false}, {"a_b", false},
	} {
		if _, err := ParseObjectName(tc.in); (err == nil) != tc.ok {
			t.Errorf("ParseObjectName(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

// TestCheckLabel: node selector keys and values as Kubernetes takes them.
func TestCheckLabel(t *testing.T) {
	for _, tc := range []struct {
		k, v string
		ok   bool
	}{
		{"zone", "a", true}, {"kubernetes.io/os", "linux", true}, {"node.kubernetes.io/instance-type", "m5.large", true},
		{"k", "", true}, {"K_1.x", "V-1_x.Y", true},
		{"", "a", false}, {"/x", "a", false}, {"Example.com/x", "a", false}, {"a/b/c", "x", false},
		{"zone", "a b", false}, {"zone", "-a", false}, {"zone", strings.Repeat("a", 64), false}, {"bad key", "x", false},
	} {
		if err := CheckLabel(tc.k, tc.v); (err == nil) != tc.ok {
			t.Errorf("CheckLabel(%q, %q) = %v, want ok %v", tc.k, tc.v, err, tc.ok)
		}
	}
}

// TestNamespaceJSON: a namespace reads back as written, an invalid one is
// refused on the way in, and an unset one is left out.
func TestNamespaceJSON(t *testing.T) {
	b, err := json.Marshal(Execution{Pods: 1, Namespace: MustNamespace("load")})
	if err != nil || !strings.Contains(string(b), `"namespace":"load"`) {
		t.Fatalf("%s %v", b, err)
	}
	var x Execution
	if err := json.Unmarshal(b, &x); err != nil || x.Namespace.String() != "load" {
		t.Errorf("read back %+v %v", x, err)
	}
	if err := json.Unmarshal([]byte(`{"pods":1,"namespace":"victim?"}`), &x); err == nil {
		t.Error("an invalid namespace was read")
	}
	if b, _ := json.Marshal(Execution{Pods: 1}); strings.Contains(string(b), "namespace") {
		t.Errorf("unset namespace written: %s", b)
	}
}
