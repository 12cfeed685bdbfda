package pods

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/load"
)

func TestSplitClosedTotals(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    load.Spec
		n    int
	}{
		{"even", load.Spec{Requests: 30000, Concurrency: 30}, 3},
		{"remainders", load.Spec{Requests: 30001, Concurrency: 31}, 3},
		{"one pod", load.Spec{Requests: 7, Concurrency: 2}, 1},
		{"timed", load.Spec{Duration: 5 * time.Second, Concurrency: 10}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := Split(tc.s, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			var req int64
			var conc int
			for _, p := range sh {
				req += p.Spec.Requests
				conc += p.Spec.Concurrency
				if p.Spec.Duration != tc.s.Duration || p.Offset != 0 {
					t.Errorf("pod share %+v: duration or offset changed", p)
				}
			}
			if req != tc.s.Requests || conc != tc.s.Concurrency {
				t.Errorf("totals %d requests, %d workers; want %d, %d", req, conc, tc.s.Requests, tc.s.Concurrency)
			}
		})
	}
}

func TestSplitRejectsTooFewWorkers(t *testing.T) {
	for _, s := range []load.Spec{
		{Requests: 10, Concurrency: 2},
		{Duration: time.Second, Concurrency: 2},
		{Rate: 100, Requests: 10, Concurrency: 2},
	} {
		if _, err := Split(s, 3); err == nil {
			t.Errorf("3 pods with %+v: want an error", s)
		}
	}
}

// A warm-up of fewer requests than pods leaves some pods idle.
func TestSplitFewerRequestsThanPods(t *testing.T) {
	sh, err := Split(load.Spec{Requests: 2, Concurrency: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var req int64
	for _, p := range sh {
		req += p.Spec.Requests
	}
	if req != 2 || sh[2].Spec.Requests != 0 || sh[2].Spec.Concurrency != 0 {
		t.Errorf("shares %+v: want 1, 1 and an idle pod", sh)
	}
}

// slots replays the engine's schedule: request j of a share is due at
// offset + j/rate (ns, as pkg/load computes it).
func slots(sh Share, end time.Duration) []int64 {
	var out []int64
	period := 1e9 / sh.Spec.Rate
	for j := int64(0); ; j++ {
		t := int64(sh.Offset) + int64(float64(j)*period)
		if sh.Spec.Duration > 0 && t >= int64(end) || sh.Spec.Duration <= 0 && j >= sh.Spec.Requests {
			return out
		}
		out = append(out, t)
	}
}

func TestSplitOpenUnionIsTheSingleSchedule(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    load.Spec
		n    int
	}{
		{"counted", load.Spec{Rate: 1000, Requests: 10001, Concurrency: 9}, 3},
		{"timed", load.Spec{Rate: 300, Duration: 2 * time.Second, Concurrency: 4}, 4},
		{"odd rate", load.Spec{Rate: 333.3, Duration: time.Second, Concurrency: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := Split(tc.s, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			var union []int64
			for _, p := range sh {
				union = append(union, slots(p, tc.s.Duration)...)
			}
			sort.Slice(union, func(a, b int) bool { return union[a] < union[b] })
			single := slots(Share{Spec: tc.s}, tc.s.Duration)
			if len(union) != len(single) {
				t.Fatalf("union has %d slots, single schedule %d", len(union), len(single))
			}
			for k := range single {
				if d := math.Abs(float64(union[k] - single[k])); d > 1000 {
					t.Fatalf("slot %d due at %d ns in the union, %d ns in the single schedule", k, union[k], single[k])
				}
			}
		})
	}
}
