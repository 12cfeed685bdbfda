package pods

import (
	"regexp"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

// TestComponents: one component per index, whose pod pattern matches its
// own pod's name (an Indexed Job's <job>-<index>-<suffix>) and no other.
func TestComponents(t *testing.T) {
	e := &Executor{o: Options{Execution: plan.Execution{Pods: 11, Namespace: plan.MustNamespace("ns")}}, name: plan.MustObjectName("authbench-1a2b")}
	cs := e.Components()
	if len(cs) != 11 {
		t.Fatalf("%d components, want 11", len(cs))
	}
	for _, tc := range []struct {
		idx   int
		pod   string
		match bool
	}{
		{1, "authbench-1a2b-1-x7k2p", true},
		{1, "authbench-1a2b-10-x7k2p", false},
		{10, "authbench-1a2b-10-x7k2p", true},
		{0, "authbench-ffff-0-x7k2p", false},
	} {
		c := cs[tc.idx]
		if c.Namespace != "ns" || c.Container != agentContainer || c.Role != RoleGenerator {
			t.Errorf("component %d: %+v", tc.idx, c)
		}
		if got := regexp.MustCompile("^(?:" + c.Pod + ")$").MatchString(tc.pod); got != tc.match {
			t.Errorf("component %d (pod=~%q) matches %s: %v, want %v", tc.idx, c.Pod, tc.pod, got, tc.match)
		}
	}
}
