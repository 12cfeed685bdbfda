package analyze

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// pathIter is one iteration's latency, throughput and fastest phases.
type pathIter struct {
	p50, mean, rps           float64
	connect, tls, fastest    float64 // fastest, ms; 0: not timed
	connCount, tlsCount, req int64
}

// pathRun builds a run of one target, "gateway", from its iterations.
func pathRun(model plan.Model, workers int, its ...pathIter) *results.Run {
	run := &results.Run{Plan: plan.Plan{Load: plan.Load{Concurrency: workers}}, Environment: results.Environment{CPUs: 2}}
	if model == plan.Open {
		run.Plan.Load.Rate = its[0].rps
	}
	for i, it := range its {
		phase := func(min float64, n int64) results.Phase {
			if min == 0 {
				return results.Phase{}
			}
			return results.Phase{Mean: min * 1.2, Min: min, Max: min * 3, Count: n}
		}
		r := results.Result{Target: "gateway", Iteration: i + 1, Model: model, Requests: it.req, Successes: it.req,
			SuccessRate: 1, ThroughputRPS: it.rps, DurationS: float64(it.req) / it.rps,
			Latency: results.Latency{Min: it.fastest, Mean: it.mean, P50: it.p50, P95: it.p50 * 1.5, P99: it.p50 * 2},
			Status:  map[string]int64{"200": it.req},
			Phases: results.Phases{Connect: phase(it.connect, it.connCount), TLS: phase(it.tls, it.tlsCount),
				Wait: phase(it.fastest*0.98, it.req)}}
		r.Start = diagT0.Add(time.Duration(i) * time.Minute)
		r.End = r.Start.Add(time.Duration(r.DurationS * float64(time.Second)))
		run.Results = append(run.Results, r)
	}
	return run
}

// The reports' 2.x run: 50 workers, P50 46 ms, 1,032 req/s; the client a
// round trip of ~45 ms away.
func distant(connect, tls float64) pathIter {
	return pathIter{p50: 46, mean: 48.4, rps: 1032, connect: connect, tls: tls, fastest: 45.6, connCount: 50, tlsCount: 50, req: 10000}
}

// descheduled is run with one worker descheduled between its write and
// its clock read, so that its time to first byte read near zero.
func descheduled(run *results.Run) *results.Run {
	run.Results[0].Phases.Wait.Min = 0.004
	return run
}

func heyImport(unavailable ...string) *results.Run {
	run := pathRun(plan.Closed, 50, distant(45.2, 0))
	r := &run.Results[0]
	run.Imported = &results.Import{Tool: "hey"}
	// hey prints a dial-up mean over every request and no counts.
	r.Phases = results.Phases{Connect: results.Phase{Mean: 0.9}, Wait: results.Phase{Mean: 46}}
	r.Unavailable = unavailable
	return run
}

func withClientDelay(run *results.Run, delay float64, at ...time.Duration) *results.Run {
	for _, d := range at {
		run.Faults = append(run.Faults, results.FaultEvent{At: diagT0.Add(d), Link: results.LinkClient,
			Action: results.FaultSet, DelayMs: delay})
	}
	return run
}

func TestNetworkRoundTrip(t *testing.T) {
	capRun := pathRun(plan.Open, 50, distant(45.2, 46.1))
	capRun.Kind = results.KindCapacity
	plainLab := func() *results.Run {
		return pathRun(plan.Closed, 50, pathIter{p50: 46.5, mean: 47, rps: 1050, connect: 3.1, fastest: 45.4, connCount: 50, req: 10000})
	}
	tests := []struct {
		name    string
		run     *results.Run
		want    bool
		measure string
		rtt     float64 // expected round trip when want
		sev     string
		words   []string
	}{
		{"client far away, TCP connect", pathRun(plan.Closed, 50, distant(45.2, 91)), true, MeasureConnect, 45.2, SeverityWarning,
			[]string{"P50 46 ms, of which ~45.2 ms", "fastest TCP connect 45.2 ms", "the main part", "50 / (45.2 ms + 0.8 ms)",
				"achieved 1032 req/s: the run is bound by the network, not the stack"}},
		// Through the lab's fault proxy the connect is local and the TLS
		// handshake carries the delay.
		{"fault proxy, TLS handshake", pathRun(plan.Closed, 50, distant(0.08, 45.9)), true, MeasureTLS, 45.6, SeverityWarning,
			[]string{"fastest TLS handshake 45.9 ms", "the TCP connect took 0.08 ms", "at most the fastest request, 45.6 ms",
				"bound by the network"}},
		// Measured through Toxiproxy with 50 workers dialling at once on
		// a busy host: its local accept took milliseconds.
		{"fault proxy under load", pathRun(plan.Closed, 50, pathIter{p50: 52.8, mean: 62.8, rps: 790, connect: 3.2, tls: 78.2,
			fastest: 45.7, connCount: 50, tlsCount: 50, req: 3160}), true, MeasureTLS, 45.7, SeverityWarning,
			[]string{"fastest TLS handshake 78.2 ms", "at most the fastest request, 45.7 ms", "(83% of that)", "mean 62.8 ms"}},
		{"a first byte timed near zero", descheduled(pathRun(plan.Closed, 50, distant(0.08, 45.9))), true, MeasureTLS, 45.6,
			SeverityWarning, []string{"bound by the network"}},
		{"plain HTTP through the lab's client link", withClientDelay(plainLab(), 45, -time.Minute), true, MeasureLabLink, 45, SeverityWarning,
			[]string{"the delay set on the lab's client link, 45 ms", "no handshake was timed"}},
		{"client delay changed during the run", withClientDelay(plainLab(), 45, -time.Minute, 5*time.Second), false, "", 0, "", nil},
		{"lab without distance", pathRun(plan.Closed, 50, pathIter{p50: 2.1, mean: 2.4, rps: 19000, connect: 0.05, tls: 1.2, fastest: 0.3,
			connCount: 50, tlsCount: 50, req: 10000}), false, "", 0, "", nil},
		// A busy host slows the handshakes' key exchange (the lab's 2x
		// measured a fastest TLS handshake of 3.4 ms at 50 workers on 2
		// CPUs); the fastest request shows the path is short.
		{"slow handshakes on a busy host", pathRun(plan.Closed, 50, pathIter{p50: 5, mean: 6, rps: 8000, connect: 0.1, tls: 3.1, fastest: 0.4,
			connCount: 50, tlsCount: 50, req: 10000}), false, "", 0, "", nil},
		{"round trip a small part", pathRun(plan.Closed, 50, pathIter{p50: 120, mean: 130, rps: 380, connect: 10, fastest: 14,
			connCount: 50, req: 10000}), false, "", 0, "", nil},
		{"round trip a large part", pathRun(plan.Closed, 50, pathIter{p50: 50, mean: 52, rps: 960, connect: 20, fastest: 22,
			connCount: 50, req: 10000}), true, MeasureConnect, 20, SeverityInfo, []string{"(40%)", "a large part", "= 1000 req/s"}},
		{"slow tail holds the workers", pathRun(plan.Closed, 50, pathIter{p50: 46, mean: 90, rps: 550, connect: 44, fastest: 45,
			connCount: 50, req: 10000}), true, MeasureConnect, 44, SeverityWarning, []string{"(51% of that)", "mean 90 ms"}},
		{"open loop", pathRun(plan.Open, 50, distant(45.2, 46.1)), true, MeasureConnect, 45.2, SeverityWarning, []string{"the main part"}},
		{"hey import without counts", heyImport("phases.tls", "phases.count", "phases.connect.range"), false, "", 0, "", nil},
		{"hey import without phases", heyImport("phases"), false, "", 0, "", nil},
		{"capacity search", capRun, false, "", 0, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []results.Finding
			for _, f := range Diagnose(tt.run, nil) {
				if f.Kind == KindNetworkRoundTrip {
					got = append(got, f)
				}
			}
			if !tt.want {
				if len(got) > 0 {
					t.Fatalf("unexpected finding: %s", got[0].Evidence)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d round-trip findings, want 1", len(got))
			}
			f := got[0]
			if f.Severity != tt.sev || math.Abs(f.Values["round_trip_ms"]-tt.rtt) > 1e-9 {
				t.Errorf("severity %s, round trip %v; want %s, %v", f.Severity, f.Values["round_trip_ms"], tt.sev, tt.rtt)
			}
			if s, _ := SplitPath(tt.run, tt.run.Results); s.Measure != tt.measure {
				t.Errorf("measure %q, want %q", s.Measure, tt.measure)
			}
			for _, w := range tt.words {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, f.Evidence)
				}
			}
			if tt.run.Plan.Load.Model() == plan.Open && strings.Contains(f.Evidence, "workers") {
				t.Errorf("open loop evidence speaks of workers: %s", f.Evidence)
			}
		})
	}
}

// A closed loop over a long path obeys Little's law as a saturated one
// does: the saturation finding must say the latency is the path.
func TestNetworkCaveatOnSaturation(t *testing.T) {
	run := pathRun(plan.Closed, 50, pathIter{p50: 46, mean: 48.4, rps: 50 / 0.0484, connect: 45.2, fastest: 45.6, connCount: 50, req: 10000})
	var sat *results.Finding
	fs := Diagnose(run, nil)
	for i := range fs {
		if fs[i].Kind == KindSaturation {
			sat = &fs[i]
		}
	}
	if sat == nil {
		t.Fatal("no saturation finding for a closed loop that obeys Little's law")
	}
	if !strings.Contains(sat.Evidence, "Caveat ("+KindNetworkRoundTrip+")") {
		t.Errorf("saturation evidence has no round-trip caveat: %s", sat.Evidence)
	}
}
