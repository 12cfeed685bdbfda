//go:build integration

package ladder

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// One lab per test binary, started by the first test that needs it and stopped
// by TestMain: both stacks, with the migration reports' misconfiguration on 3x,
// a 50 millicore CPU limit on oauth2-proxy (kube-auth-proxy's stand-in).
var (
	labDir  string
	labErr  error
	labOnce sync.Once
)

func TestMain(m *testing.M) {
	// lab.Up starts this test binary as the lab's supervisor.
	processes.ServeIfAsked()
	flag.Parse()
	code := m.Run()
	if labDir != "" {
		_ = lab.Open(labDir, processes.Platform{}).Down(context.Background(), io.Discard)
		os.RemoveAll(labDir)
	}
	os.Exit(code)
}

// needLab starts the lab once; every caller gets its directory.
func needLab(t *testing.T) string {
	t.Helper()
	labOnce.Do(func() {
		labDir, labErr = os.MkdirTemp("", "authbench-ladder-it-")
		if labErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		_ = lab.Open(labDir, processes.Platform{}).Down(ctx, io.Discard) // a lab left by an interrupted earlier run
		_, labErr = lab.Open(labDir, processes.Platform{}).Up(ctx, lab.UpOptions{Out: os.Stderr, Supervisor: []string{os.Args[0], "-test.run=^$"},
			Config: lab.Config{Stacks: []string{stacks.Stack2x, stacks.Stack3x}, Limits: []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}}}})
	})
	testenv.NeedLab(t, labErr)
	return labDir
}

// labLadder runs a short ladder on stack 3x: six rounds of 1.2 s turns
// after 1 s capacity probes, about 45 s in all.
func labLadder(t *testing.T, name string, adjust func(*Options)) *results.Ladder {
	t.Helper()
	return stackLadder(t, stacks.Stack3x, name, remainderChecked, adjust)
}

// busyHost is the share of late sends above which the ladder itself says
// the host was busy: such a measurement judges the host, not the ladder,
// so it is taken again, at most maxAttempts times in all. A ladder whose
// remainder misses (remainderMisses) is taken again too: its 95%
// intervals miss zero one time in twenty by chance alone, and on this
// shared host one stalled turn moves one rung's tail, while a bias of
// the ladder's own (a slot measured unlike the others) misses in every
// attempt and still fails.
const (
	busyHost    = 0.05
	maxAttempts = 3
)

// negligibleRemainder is the share of the end-to-end figure under which
// an unattributed remainder counts as none. On quiet clean clones the
// unlimited ladder's P50 remainder ranged from -95 µs [-182, -5] to +20 µs
// [3, 39] of about 1.8 ms: a tenth of the latency leaves the layers
// accounting for it, which is the claim tested.
const negligibleRemainder = 0.10

// remainderChecked is how many of results.LadderPercentiles the
// remainder is checked at: P50 and P95 (P99 of a few thousand requests
// is too coarse).
const remainderChecked = 2

// checkRemainder wants the layers to account for the end-to-end latency
// at the first n of results.LadderPercentiles (remainderMisses).
func checkRemainder(t *testing.T, l *results.Ladder, n int) {
	t.Helper()
	for _, m := range remainderMisses(l, n) {
		t.Error(m)
	}
}

// remainderMisses lists the first n of results.LadderPercentiles at which
// the layers do not account for the end-to-end latency: the remainder's
// interval excludes zero and the remainder is over negligibleRemainder of
// the end-to-end figure.
func remainderMisses(l *results.Ladder, n int) []string {
	var out []string
	tot, sum, rem, ci := l.TotalMs.Values(), l.SumMs.Values(), l.UnattributedMs.Values(), l.UnattributedCIMs.Values()
	for i, p := range results.LadderPercentiles[:n] {
		excludes := ci[i][0] > 0 || ci[i][1] < 0
		if excludes && math.Abs(rem[i]) > negligibleRemainder*tot[i] {
			out = append(out, fmt.Sprintf("%s P%g: layers sum to %.3f ms, end to end %.3f ms: remainder %.3f [%.3f, %.3f] excludes zero and is over %.0f%% of it",
				l.Target, p, sum[i], tot[i], rem[i], ci[i][0], ci[i][1], negligibleRemainder*100))
		}
	}
	return out
}

// drifted says the ladder noted rounds far from their rung's median, and
// so that its intervals may not cover what drifted. At three quarters of
// a throttled capacity it does in most measurements, on a quiet host too
// (6 of 6 attempts in two runs), so re-measuring would not help.
func drifted(l *results.Ladder) bool {
	return slices.ContainsFunc(l.Notes, func(n string) bool { return strings.HasPrefix(n, DriftNote) })
}

// stackLadder runs a ladder on the lab's stack, again while the host was
// busy or the remainder missed at the first checked percentiles (none
// when 0; a drifted ladder is not taken again for it).
func stackLadder(t *testing.T, stack, name string, checked int, adjust func(*Options)) *results.Ladder {
	t.Helper()
	var l *results.Ladder
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		o, err := LabOptions(context.Background(), needLab(t), stack, processes.Platform{})
		if err != nil {
			t.Fatal(err)
		}
		o.Rounds, o.Plan.Load.Duration, o.Out, o.Name = 6, plan.Duration(1200*time.Millisecond), t.TempDir(), name
		adjust(&o)
		out, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		l = out.Ladder
		var b strings.Builder
		_ = report.LadderText(&b, l, out.Dir)
		t.Logf("%s, attempt %d:\n%s", name, attempt, b.String())
		if attempt == maxAttempts {
			break
		}
		if l.LateSendFraction > busyHost {
			t.Logf("%s: %.0f%% of requests sent late, the host is busy: measuring again", name, l.LateSendFraction*100)
			continue
		}
		if miss := remainderMisses(l, checked); len(miss) > 0 && !drifted(l) {
			t.Logf("%s: the remainder missed (%s): measuring again", name, strings.Join(miss, "; "))
			continue
		}
		break
	}
	return l
}

// setAuthLimit changes oauth2-proxy's CPU limit through its cgroup.
func setAuthLimit(t *testing.T, millicores int64) {
	t.Helper()
	st, err := lab.Open(needLab(t), processes.Platform{}).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := st.Component(stacks.OAuth2Proxy)
	if !ok || c.Cgroup == "" {
		t.Skipf("oauth2-proxy has no cgroup (%s): the lab cannot limit it", st.Cgroups)
	}
	g, err := cgroup.Open(c.Cgroup)
	if err == nil {
		err = g.SetCPULimit(millicores)
	}
	if err != nil {
		t.Fatalf("setting oauth2-proxy's cpu limit to %dm: %v", millicores, err)
	}
}

// TestLadderLab shows on one lab that (a) the 50m limit on
// oauth2-proxy moves the attribution to the auth layer — it is named the
// bottleneck, its own capacity collapses, and at the same rate (three
// quarters of the limited stack's capacity, where a CPU quota throttles)
// it adds more to the P95 than once the limit is lifted; (b) the layers plus
// the unattributed remainder match the separately measured end-to-end
// latency within their intervals.
func TestLadderLab(t *testing.T) {
	setAuthLimit(t, 50) // as configured; skips without cgroups
	limited := labLadder(t, "limited", func(o *Options) { o.RateFraction = 0.75 })
	setAuthLimit(t, 0)
	t.Cleanup(func() { setAuthLimit(t, 50) })
	free := labLadder(t, "unlimited", func(o *Options) { o.Plan.Load.Rate = limited.RateRPS })

	t.Run("limit moves the attribution to the auth layer", func(t *testing.T) {
		if limited.Bottleneck != stacks.OAuth2Proxy {
			t.Errorf("bottleneck under the 50m limit is %q, want %s", limited.Bottleneck, stacks.OAuth2Proxy)
		}
		auth, before := findLayer(limited, stacks.OAuth2Proxy), findLayer(free, stacks.OAuth2Proxy)
		if auth.Kind != results.LayerExtAuthz {
			t.Errorf("oauth2-proxy is %q, want ext_authz", auth.Kind)
		}
		if auth.OwnCapacityRPS <= 0 || auth.OwnCapacityRPS*4 > before.OwnCapacityRPS {
			t.Errorf("oauth2-proxy's own capacity %.0f req/s with the limit, %.0f without: want it to collapse", auth.OwnCapacityRPS, before.OwnCapacityRPS)
		}
		// A quota at three quarters of capacity throttles some requests by
		// up to its 100 ms period: the tail moves, the median barely. How
		// far it moves varies from run to run (the rate follows the probed
		// capacity, and queues near a throttled capacity build and drain
		// over seconds), so the estimates are compared, not their
		// intervals, and the share is taken among the layers behind the
		// gateway: the end-to-end slot's own queueing, which the ladder
		// reports as drift, would otherwise set the share of the total.
		if auth.AddedMs.P95 <= before.AddedMs.P95 {
			t.Errorf("oauth2-proxy's added P95 with the limit %.2f [%.2f, %.2f] ms does not exceed its figure without %.2f [%.2f, %.2f] ms",
				auth.AddedMs.P95, auth.CIMs.P95[0], auth.CIMs.P95[1], before.AddedMs.P95, before.CIMs.P95[0], before.CIMs.P95[1])
		}
		for _, l := range limited.Layers {
			if l.Name != stacks.OAuth2Proxy && l.Name != stacks.Envoy && l.AddedMs.P95 >= auth.AddedMs.P95 {
				t.Errorf("with the limit %s adds %.2f ms to the P95, oauth2-proxy %.2f ms: want oauth2-proxy the largest behind the gateway",
					l.Name, l.AddedMs.P95, auth.AddedMs.P95)
			}
		}
	})

	t.Run("layers and remainder match the end-to-end latency", func(t *testing.T) {
		checked := 0
		for _, l := range []*results.Ladder{free, limited} {
			if drifted(l) {
				// Near a throttled capacity queues build and drain over
				// seconds, so rungs measured in turn see different queues;
				// the ladder says so, and its intervals claim nothing then.
				t.Logf("%s at %.0f req/s drifted: its remainder is not checked", l.Target, l.RateRPS)
				continue
			}
			checked++
			checkRemainder(t, l, remainderChecked)
		}
		if checked == 0 {
			t.Error("both ladders drifted: the remainder was checked on neither")
		}
	})

	t.Run("gateway log beside the ladder", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(labDir, EnvoyAccessLog)); err != nil {
			t.Fatalf("the lab's Envoy does not write %s: %v", EnvoyAccessLog, err)
		}
		hop := func(l *results.Ladder) results.HopTiming {
			for _, h := range l.Hops {
				if h.Name == hopExtAuthz {
					return h
				}
			}
			return results.HopTiming{Missing: "no ext_authz timing"}
		}
		limitedHop, freeHop := hop(limited), hop(free)
		for _, h := range []results.HopTiming{limitedHop, freeHop} {
			if h.Missing != "" || h.Requests == 0 {
				t.Fatalf("ext_authz hop not timed: %+v", h)
			}
		}
		// Unthrottled, Envoy's view and the ladder's agree within the
		// hop to the service (Envoy logs microseconds).
		if h := freeHop; h.Ms.P50 > h.LadderMs.P50+2.5 || h.Ms.P50 < h.LadderMs.P50-1.5 {
			t.Errorf("Envoy times the ext_authz call at P50 %.1f ms, the ladder's figure is %.2f ms", h.Ms.P50, h.LadderMs.P50)
		}
		if limitedHop.Ms.P95 <= freeHop.Ms.P95 {
			t.Errorf("Envoy times the ext_authz call at P95 %.0f ms with the limit, %.0f ms without: want it slower", limitedHop.Ms.P95, freeHop.Ms.P95)
		}
	})
}

// TestLadderLab2x runs the ladder on the Route + oauth-proxy stack: three
// inline layers, HAProxy's timers beside them when it logs them, and the
// end-to-end latency accounted for.
func TestLadderLab2x(t *testing.T) {
	l := stackLadder(t, stacks.Stack2x, "2x", 1, func(o *Options) { o.Rounds = 4 })
	var names []string
	for _, layer := range l.Layers {
		names = append(names, layer.Name)
		if layer.Kind != results.LayerInline {
			t.Errorf("%s is %s, want inline", layer.Name, layer.Kind)
		}
		if layer.CapacityRPS <= 0 {
			t.Errorf("%s has no capacity", layer.Name)
		}
	}
	if want := []string{stacks.HAProxy, stacks.OAuthProxy, stacks.Echo2x}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("layers %v, want %v", names, want)
	}
	checkRemainder(t, l, 1)
	if l.Bottleneck == "" {
		t.Error("no bottleneck named")
	}
	for _, h := range l.Hops {
		if h.Missing == "" && h.Requests == 0 {
			t.Errorf("HAProxy timing %s covers no request", h.Name)
		}
	}
}
