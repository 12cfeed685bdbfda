package demo

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/results"
)

// TestCommonRate: step 2's rate is a fraction of the lowest capacity, and
// a stack without one is said, not silently compared above its capacity.
func TestCommonRate(t *testing.T) {
	o := Options{MinRate: 50, RateFraction: 0.5}
	search := func(target string, c float64) *capacity.Result { return &capacity.Result{Target: target, Capacity: c} }
	tests := []struct {
		name string
		o    Options
		rs   []*capacity.Result
		rate float64
		note string
	}{
		{"lowest of two", o, []*capacity.Result{search("a", 850), search("b", 488)}, 240, ""},
		{"given rate wins", Options{Rate: 123, MinRate: 50, RateFraction: 0.5}, []*capacity.Result{search("a", 850)}, 123, ""},
		{"one without capacity", o, []*capacity.Result{search("a", 360), search("b", 0)}, 180, "b met the SLO at no rate tried"},
		{"none with capacity", o, []*capacity.Result{search("a", 0), search("b", 0)}, 25, "a and b met the SLO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, note := commonRate(tt.rs, tt.o)
			if rate != tt.rate || (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) {
				t.Errorf("commonRate = %g, %q; want %g, %q", rate, note, tt.rate, tt.note)
			}
			if below := belowAll(tt.rs, rate); below != (tt.note == "") {
				t.Errorf("belowAll(%g) = %v", rate, below)
			}
		})
	}
}

// TestCapacityText: the capacity with its interval, or why there is none.
func TestCapacityText(t *testing.T) {
	tests := []struct {
		r    capacity.Result
		want string
	}{
		{capacity.Result{Capacity: 487.5, FirstFail: 500}, "488 req/s [488, 500)"},
		{capacity.Result{Capacity: 800}, "at least 800 req/s (no rate tried failed)"},
		{capacity.Result{Steps: []capacity.Step{{CapacityPoint: capacity.Point{Offered: 50}}}}, "below 50 req/s"},
		{capacity.Result{}, "not measured"},
	}
	for _, tt := range tests {
		if got := capacityText(&tt.r); got != tt.want {
			t.Errorf("capacityText(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestLadderVerdict: the costliest layer in front of the backend is
// named, never the backend itself.
func TestLadderVerdict(t *testing.T) {
	l := &results.Ladder{Target: "lab-3x", Layers: []results.LadderLayer{
		{Name: "nginx", AddedMs: results.LadderQuantiles{P50: 0.5}},
		{Name: "oauth2-proxy", AddedMs: results.LadderQuantiles{P50: 0.3}},
		{Name: "http-echo-3x", AddedMs: results.LadderQuantiles{P50: 2}},
	}}
	if name, ms := costliest(l); name != "nginx" || ms != 0.5 {
		t.Errorf("costliest = %s %g, want nginx 0.5", name, ms)
	}
	v := verdict(&Outcome{})
	if len(v) != 1 || !strings.Contains(v[0], "No verdict") {
		t.Errorf("verdict of nothing = %q", v)
	}
}

// TestSignificanceWords: an interval from the requests that excludes zero
// beside a test of the iterations that does not reject is worded as
// run-to-run noise, not left to contradict "within noise".
func TestSignificanceWords(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  analyze.Significance
		want string
	}{
		{"beyond", analyze.Significance{Tests: []string{"welch"}, PValue: 0.001, CILow: 1, CIHigh: 2, Significant: true}, ", beyond noise"},
		{"iterations disagree", analyze.Significance{Tests: []string{"welch"}, PValue: 0.42, CILow: 2.21, CIHigh: 2.55}, "within run-to-run noise: the iterations disagree"},
		{"within", analyze.Significance{Tests: []string{"welch"}, PValue: 0.5, CILow: -1, CIHigh: 2}, ", within noise"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &analyze.Comparison{Latency: []analyze.Metric{{Key: "p50", Deltas: []analyze.Delta{{}, {Diff: 1.5, Sig: tt.sig}}}}}
			if got := significance(c, "p50", 1); !strings.HasSuffix(got, tt.want) {
				t.Errorf("significance = %q, want it to end %q", got, tt.want)
			}
		})
	}
}
