package processes

import (
	"context"
	"errors"
	"testing"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/stacks"
)

func TestComponentsNeedsARunningSupervisor(t *testing.T) {
	dir := t.TempDir()
	st := &lab.State{Dir: dir, Phase: lab.PhaseReady, Supervisor: 42, Components: []lab.ComponentInfo{
		{Name: stacks.HAProxy, Cgroup: "/authbench/lab-1/haproxy"}, {Name: stacks.OAuth2Proxy, PID: 101, Limit: "50m"}}}
	if err := lab.WriteState(dir, st); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := lab.Open(dir, Platform{}).Components(ctx); !errors.Is(err, lab.ErrNotRunning) {
		t.Errorf("Components without a supervisor: %v, want ErrNotRunning", err)
	}
	held, err := lock.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	comps, err := lab.Open(dir, Platform{}).Components(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 || comps[1].Limit != "50m" || comps[0].Cgroup == "" {
		t.Errorf("Components = %+v", comps)
	}
	if _, err := lock.Acquire(dir); !errors.Is(err, lab.ErrAlreadyRunning) {
		t.Errorf("second lock: %v, want ErrAlreadyRunning", err)
	}
}
