package load

import (
	"math"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

func mustStages(t *testing.T, s string) plan.Stages {
	t.Helper()
	ss, err := plan.ParseStages(s)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestScheduleCounts checks that each stage schedules exactly its rate's
// integral, and that the intended times are ordered and inside their
// stage's window.
func TestScheduleCounts(t *testing.T) {
	for _, tc := range []struct {
		stages string
		want   []int64 // slots due per stage
	}{
		{"4s:100,4s:400,4s:100", []int64{400, 1600, 400}},
		{"1s:100,2s:100-300,1s:300", []int64{100, 400, 300}},
		{"2s:0-100", []int64{100}},
		{"2s:100-0,1s:0,1s:10", []int64{100, 0, 10}},
		{"1s:0.5-1.5", []int64{1}},
		{"3s:1,250ms:2", []int64{3, 1}}, // the integral passes 3 at the second stage's start
		{"1500ms:3-4", []int64{6}},      // 5.25 requests: slots 0..5
		{"10s:7-13,10s:13-7", []int64{100, 100}},
	} {
		t.Run(tc.stages, func(t *testing.T) {
			ss := mustStages(t, tc.stages)
			s := newSchedule(ss, 1, 0)
			var integral float64
			for i, st := range ss {
				integral += st.Requests()
				if got := s.stageScheduled(i); got != tc.want[i] {
					t.Errorf("stage %d schedules %d, want %d", i+1, got, tc.want[i])
				}
			}
			if want := int64(math.Ceil(integral - 1e-9)); s.scheduled() != want {
				t.Errorf("scheduled %d, want ceil of the integral %g = %d", s.scheduled(), integral, want)
			}
			checkTimes(t, s)
		})
	}
}

// checkTimes walks every slot: times never go back, each lies within its
// stage, and the rate's integral at a slot's time is the slot's index.
func checkTimes(t *testing.T, s *schedule) {
	t.Helper()
	prev := int64(-1)
	for k := range s.total {
		at, i, ok := s.at(k)
		if !ok {
			t.Fatalf("slot %d of %d has no time", k, s.total)
		}
		st := s.stages[i]
		if at < prev || at < st.start || at >= st.start+st.dur || k < st.first || k >= st.end {
			t.Fatalf("slot %d at %d ns in stage %d [%d, %d) slots [%d, %d); previous %d", k, at, i, st.start, st.start+st.dur, st.first, st.end, prev)
		}
		tau := float64(at-st.start) / 1e9
		if got := st.n0 + st.a*tau + st.b*tau*tau/2; math.Abs(got-float64(k)) > 1e-3 {
			t.Fatalf("slot %d at %g s into stage %d: the integral there is %g", k, tau, i, got)
		}
		prev = at
	}
	if _, _, ok := s.at(s.total); ok {
		t.Fatalf("slot %d past the end has a time", s.total)
	}
}

// TestScheduleStrides checks that pods striding the schedule send every
// slot exactly once, each stage's count split as evenly as slots allow.
func TestScheduleStrides(t *testing.T) {
	ss := mustStages(t, "1s:10,2s:10-50,1s:7")
	whole := newSchedule(ss, 1, 0)
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[int64]int{}
		perStage := make([]int64, len(ss))
		for i := range n {
			s := newSchedule(ss, n, i)
			for j := range s.scheduled() {
				k := s.global(j)
				_, st, ok := s.at(k)
				if !ok {
					t.Fatalf("%d pods: pod %d slot %d (global %d) has no time", n, i, j, k)
				}
				seen[k]++
				perStage[st]++
			}
			for st := range ss {
				if got, all := s.stageScheduled(st), whole.stageScheduled(st); got < all/int64(n) || got > all/int64(n)+1 {
					t.Errorf("%d pods: pod %d has %d of stage %d's %d slots", n, i, got, st+1, all)
				}
			}
		}
		if int64(len(seen)) != whole.total {
			t.Errorf("%d pods send %d distinct slots, want %d", n, len(seen), whole.total)
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("%d pods: slot %d sent %d times", n, k, c)
			}
		}
		for st := range ss {
			if perStage[st] != whole.stageScheduled(st) {
				t.Errorf("%d pods: stage %d got %d slots, want %d", n, st+1, perStage[st], whole.stageScheduled(st))
			}
		}
	}
}
