package ladder

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestOptionsValidation checks that the ladder's load and client settings
// go through the plan layer (its defaults, its checks and its messages)
// and that the ladder adds only its own rules.
func TestOptionsValidation(t *testing.T) {
	const u = "http://127.0.0.1:1/"
	stack := plan.Target{Name: "s", URL: u, Layers: []string{"a"}, Rungs: []plan.Rung{{Layer: "a", URL: u}}}
	withPlan := func(l plan.Load, given map[string]string, ts ...plan.Target) *plan.Plan {
		if len(ts) == 0 {
			ts = []plan.Target{stack}
		}
		return &plan.Plan{Targets: ts, Load: l, Given: given}
	}
	tests := []struct {
		name string
		o    Options
		want string // "" means valid
	}{
		{"no plan", Options{}, "no plan"},
		{"defaults", Options{Plan: withPlan(plan.Load{}, nil)}, ""},
		{"given zero concurrency", Options{Plan: withPlan(plan.Load{}, plan.Given{plan.FieldConcurrency: "-c"})},
			"concurrency (-c): must be at least 1, got 0"},
		{"negative rate", Options{Plan: withPlan(plan.Load{Rate: -1}, nil)}, "load.rate: must be more than 0"},
		{"negative duration", Options{Plan: withPlan(plan.Load{Duration: -1}, nil)}, "load.duration: must be positive"},
		{"open loop, fewer requests than workers", Options{Plan: withPlan(plan.Load{Requests: 10, Concurrency: 50}, nil)}, ""},
		{"closed loop, fewer requests than workers", Options{Closed: true, Plan: withPlan(plan.Load{Requests: 10, Concurrency: 50}, nil)},
			"cannot exceed 10 requests"},
		{"closed with a rate", Options{Closed: true, Plan: withPlan(plan.Load{Rate: 10}, nil)}, "or --closed, not both"},
		{"rate fraction above 1", Options{RateFraction: 2, Plan: withPlan(plan.Load{}, nil)}, "rate fraction must be in (0, 1]"},
		{"negative rounds", Options{Rounds: -1, Plan: withPlan(plan.Load{}, nil)}, "rounds must be at least 1"},
		{"negative probe", Options{ProbeDuration: -time.Second, Plan: withPlan(plan.Load{}, nil)}, "probe durations"},
		{"bad rung url", Options{Plan: withPlan(plan.Load{}, nil, plan.Target{Name: "s", URL: u, Rungs: []plan.Rung{{Layer: "a", URL: "ftp://x"}}})},
			`target "s", rung a: bad url "ftp://x"`},
		{"named target without rungs", Options{Target: "s", Plan: withPlan(plan.Load{}, nil, plan.Target{Name: "s", URL: u})}, "has no rungs"},
		{"scenario's target missing", Options{Target: "t", Plan: &plan.Plan{Source: "s.yaml", Targets: []plan.Target{stack}}}, `s.yaml: no target "t"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.complete()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestOptionsDefaults: a turn lasts DefaultSlotDuration (not the plan's
// request count), the plan's other defaults apply, and a duration wins
// over requests.
func TestOptionsDefaults(t *testing.T) {
	u := "http://127.0.0.1:1/"
	stack := plan.Target{Name: "s", URL: u, Layers: []string{"gw", "a"}, Rungs: []plan.Rung{{Layer: "a", URL: u}}}
	o := Options{Plan: &plan.Plan{Targets: []plan.Target{stack}}, Gateway: &GatewayLog{Path: "x.log"}}
	tg, err := o.complete()
	if err != nil {
		t.Fatal(err)
	}
	l := o.Plan.Load
	if l.Duration.D() != DefaultSlotDuration || l.Requests != 0 || l.Concurrency != plan.DefaultConcurrency ||
		o.Plan.Client.Timeout != plan.DefaultTimeout || o.Rounds != DefaultRounds || o.Name != "ladder-s" || tg.Method != plan.DefaultMethod {
		t.Errorf("completed %+v, client %+v, rounds %d, name %q, method %q", l, o.Plan.Client, o.Rounds, o.Name, tg.Method)
	}
	if o.Gateway.Gateway != "gw" {
		t.Errorf("gateway %q, want the outermost layer gw", o.Gateway.Gateway)
	}
	o = Options{Plan: &plan.Plan{Targets: []plan.Target{stack}, Load: plan.Load{Requests: 30, Duration: plan.Duration(time.Second)}}}
	if _, err := o.complete(); err != nil || o.Plan.Load.Requests != 0 {
		t.Errorf("err %v, requests %d: want the duration to win", err, o.Plan.Load.Requests)
	}
}
