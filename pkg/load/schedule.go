package load

import (
	"math"
	"sort"

	"github.com/authbench/authbench/pkg/plan"
)

// schedule is a staged open loop's timeline: the rate is piecewise
// linear, and global slot k is due when the rate's integral since the
// start reaches k. An attack (one pod of several) sends the slots
// k = j*stride + slot, j = 0, 1, ...; each keeps its stage and its own
// intended time, so the pods' union is the one schedule.
type schedule struct {
	stages       []slotStage
	stride, slot int64
	total        int64 // global slots due in all
}

// slotStage is one stage on the timeline.
type slotStage struct {
	start, dur int64   // ns after the attack's start
	a, b       float64 // rate at the start (1/s) and its slope (1/s²)
	n0         float64 // the integral before the stage: requests due earlier
	first, end int64   // the global slots [first, end) due in the stage
}

func newSchedule(ss plan.Stages, stride, slot int) *schedule {
	s := &schedule{stride: max(int64(stride), 1), slot: max(int64(slot), 0)}
	var start int64
	var n float64
	for _, st := range ss {
		d := int64(st.Duration)
		sec := float64(d) / 1e9
		ps := slotStage{start: start, dur: d, a: st.From, b: (st.To - st.From) / sec, n0: n, first: slots(n)}
		n += st.Mean() * sec
		ps.end = max(slots(n), ps.first)
		s.stages = append(s.stages, ps)
		start += d
	}
	s.total = slots(n)
	return s
}

// slots is how many whole slots are due before the integral reaches x:
// ceil(x), with a margin so that a float's last bit does not add a slot
// to a stage of exactly 400 requests.
func slots(x float64) int64 {
	return max(int64(math.Ceil(x-1e-9*math.Max(1, x))), 0)
}

// global is this attack's j-th slot in the whole schedule.
func (s *schedule) global(j int64) int64 { return j*s.stride + s.slot }

// at is when global slot k is due (ns after the start) and its stage;
// false past the schedule's end. Within a stage of rate a+b·τ, the
// integral a·τ + b·τ²/2 reaches Δ = k-n0 at τ = 2Δ / (a + √(a² + 2bΔ)),
// a form without the cancellation of the textbook root and exact for a
// hold (b = 0).
func (s *schedule) at(k int64) (int64, int, bool) {
	if k < 0 || k >= s.total {
		return 0, -1, false
	}
	i := sort.Search(len(s.stages), func(i int) bool { return s.stages[i].end > k })
	if i == len(s.stages) {
		return 0, -1, false
	}
	st := &s.stages[i]
	delta := max(float64(k)-st.n0, 0)
	var tau float64
	if den := st.a + math.Sqrt(max(st.a*st.a+2*st.b*delta, 0)); den > 0 {
		tau = 2 * delta / den
	}
	off := min(max(int64(tau*1e9), 0), st.dur-1)
	return st.start + off, i, true
}

// owned counts this attack's slots among the global slots [first, end).
func (s *schedule) owned(first, end int64) int64 {
	below := func(x int64) int64 { // slots j >= 0 with global(j) < x
		if x <= s.slot {
			return 0
		}
		return (x - s.slot + s.stride - 1) / s.stride
	}
	return max(below(end)-below(first), 0)
}

// scheduled counts this attack's slots in the whole schedule.
func (s *schedule) scheduled() int64 { return s.owned(0, s.total) }

// stageScheduled counts this attack's slots in stage i.
func (s *schedule) stageScheduled(i int) int64 {
	return s.owned(s.stages[i].first, s.stages[i].end)
}
