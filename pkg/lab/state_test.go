package lab

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

func sampleState(dir string) *State {
	ready := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return &State{
		Dir: dir, Phase: PhaseReady, Supervisor: 42, Started: ready.Add(-9 * time.Second), ReadyAt: &ready,
		Stacks: []string{stacks.Stack2x, stacks.Stack3x}, Cgroups: "v1", CACert: dir + "/certs/ca.crt",
		Ports: map[string]int{stacks.HAProxy: 40001, stacks.Envoy: 40002},
		Components: []ComponentInfo{
			{Name: stacks.HAProxy, Stack: stacks.Stack2x, Role: "route", Program: "haproxy", Plays: "an OpenShift Route",
				Version: "2.6.12", PID: 100, Cgroup: "/authbench/lab-1/haproxy", URL: "https://127.0.0.1:40001/echo", Status: StatusRunning},
			{Name: stacks.OAuth2Proxy, Stack: stacks.Stack3x, Role: "ext-authz", Program: "oauth2-proxy", Version: "v7.8.1",
				PID: 101, Limit: "50m", URL: "http://127.0.0.1:40003/echo", Status: StatusRunning},
		},
		Targets: []StackTarget{{Name: stacks.Target2x, Stack: stacks.Stack2x, URL: "https://127.0.0.1:40001/echo",
			Layers: []Rung{{Layer: stacks.HAProxy, URL: "https://127.0.0.1:40001/echo"}}}},
		Notes: []string{"nginx stands in for Envoy"},
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleState(dir)
	if err := WriteState(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if got.Version != stateVersion {
		t.Errorf("version = %d, want %d", got.Version, stateVersion)
	}
}

func TestReadStateMissing(t *testing.T) {
	if _, err := ReadState(t.TempDir()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("error = %v, want ErrNotRunning", err)
	}
}

func TestRecord(t *testing.T) {
	s := sampleState("/lab")
	r := s.Record()
	if r.Dir != "/lab" || len(r.Components) != 2 || len(r.Notes) != 1 {
		t.Fatalf("Record = %+v", r)
	}
	if got, want := r.Components[0].Role, "route (haproxy plays an OpenShift Route)"; got != want {
		t.Errorf("role = %q, want %q", got, want)
	}
	if r.Components[1].Limit != "50m" || r.Components[1].Version != "v7.8.1" {
		t.Errorf("component = %+v", r.Components[1])
	}
}

func TestAddReplicaAfterItsSiblings(t *testing.T) {
	s := &State{Components: []ComponentInfo{{Name: "a"}, {Name: "ext"}, {Name: "ext-r2", ReplicaOf: "ext"}, {Name: "gw"}}}
	s.AddReplica("ext", ComponentInfo{Name: "ext-r3", ReplicaOf: "ext"})
	want := []string{"a", "ext", "ext-r2", "ext-r3", "gw"}
	if len(s.Components) != len(want) {
		t.Fatalf("got %d components, want %d", len(s.Components), len(want))
	}
	for i, w := range want {
		if s.Components[i].Name != w {
			t.Errorf("component %d = %s, want %s", i, s.Components[i].Name, w)
		}
	}
}
