package deploy

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/stacks"
)

// StackOptions.Limits land on the container that runs the component, and
// only there.
func TestSetLimits(t *testing.T) {
	objs, err := manifests.Build(manifests.Options{Stack: stacks.Stack2x,
		Serving: manifests.TLS{Cert: []byte("C"), Key: []byte("K"), CA: []byte("A")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := setLimits(objs, stacks.OAuthProxy, map[string]string{"cpu": "50m"}); err != nil {
		t.Fatal(err)
	}
	if err := setLimits(objs, "nginx", map[string]string{"cpu": "50m"}); err == nil {
		t.Error("a limit on an unknown component was accepted")
	}
	got := map[string]any{}
	for _, o := range objs {
		if manifests.Kind(o) != "Deployment" {
			continue
		}
		spec := o["spec"].(manifests.Object)["template"].(manifests.Object)["spec"].(manifests.Object)
		for _, c := range spec["containers"].([]manifests.Object) {
			got[manifests.Name(o)+"/"+c["name"].(string)] = c["resources"].(manifests.Object)["limits"]
		}
	}
	want := map[string]any{"http-echo-2x/http-echo": nil, "http-echo-2x/oauth-proxy": manifests.Object{"cpu": "50m"}, "haproxy/haproxy": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("limits %v, want %v", got, want)
	}
}
