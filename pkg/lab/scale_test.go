package lab

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/stacks"
)

func TestScaleRequestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r, err := ReadScaleRequest(dir)
	if err != nil || r.Generation != 0 || r.Want(stacks.OAuthProxy) != 1 {
		t.Fatalf("missing request = %+v, %v; want generation 0, one replica", r, err)
	}
	r.Merge([]stacks.Scale{{Component: stacks.OAuthProxy, Replicas: 3}})
	r.Merge([]stacks.Scale{{Component: stacks.KubeAuthProxyOAuth, Replicas: 2}})
	if err := WriteScaleRequest(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadScaleRequest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Generation != 2 || got.Want(stacks.OAuthProxy) != 3 || got.Want(stacks.KubeAuthProxyOAuth) != 2 {
		t.Errorf("read back %+v", got)
	}
}

func TestStatusShowsReplicas(t *testing.T) {
	s := &State{Dir: "/lab", Phase: PhaseReady, Components: []ComponentInfo{
		{Name: stacks.KubeAuthProxyOAuth}, {Name: stacks.ReplicaName(stacks.KubeAuthProxyOAuth, 2), ReplicaOf: stacks.KubeAuthProxyOAuth},
		{Name: stacks.OAuthProxy},
	}}
	if n := s.Replicas(stacks.KubeAuthProxyOAuth); n != 2 {
		t.Errorf("Replicas = %d, want 2", n)
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "kube-auth-proxy-oauth: 2 replicas behind envoy-oauth") {
		t.Errorf("status lacks the replicas:\n%s", b.String())
	}
	if strings.Contains(b.String(), "oauth-proxy: 1 replicas") {
		t.Errorf("status lists an unscaled component:\n%s", b.String())
	}
}
