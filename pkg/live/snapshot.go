package live

import (
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// Snapshot is what one frame shows.
type Snapshot struct {
	// Title is the command ("run", "capacity", "ladder").
	Title string
	// Phase names the phase running ("echo, iteration 1/3"); "" between
	// phases.
	Phase string
	// Elapsed is the phase's time so far; Duration its planned length (0
	// when it is a request count: Total then).
	Elapsed, Duration time.Duration
	// Done counts the phase's completed requests; Total the planned ones.
	Done, Total int64
	// Target is the open loop's rate; 0 in the closed loop (Workers then).
	Target  float64
	Workers int
	// Rate is the achieved rate over Window.
	Rate   float64
	Window time.Duration
	// Recent is the latency of the Window; SoFar of the phase or the
	// target so far, as SoFarLabel says.
	Recent, SoFar Latency
	SoFarLabel    string
	// RecentErrors and RecentRequests count the Window's; Errors by class
	// are the phase's so far.
	RecentErrors, RecentRequests int64
	Errors                       int64
	Classes                      []Count
	// Components are the sampled components over the last seconds, or,
	// when ComponentsNote says so, as the last phase recorded them.
	Components     []results.ComponentUsage
	ComponentsNote string
	// Pods is each pod's share of the Window (pods only).
	Pods []PodShare
	// PhasesDone counts the run's phases over, named by PhaseWord;
	// RunRequests and RunErrors count every phase's requests.
	PhaseWord              string
	PhasesDone             int
	RunRequests, RunErrors int64
	// Stopping is set once the run was asked to stop (Ctrl-C).
	Stopping bool
}

// Latency is P50 and P99 in ms, corrected and (open loop) uncorrected.
type Latency struct {
	N          int64
	P50, P99   float64
	HasU       bool
	UP50, UP99 float64
}

// Count is one error class and its count.
type Count struct {
	Class string
	N     int64
}

// PodShare is one pod's achieved rate and share of the total.
type PodShare struct {
	Pod   int
	Rate  float64
	Share float64
}

// latencyOf reads P50 and P99 off the histograms (µs).
func latencyOf(h, u *hdr.Histogram, open bool) Latency {
	l := Latency{N: h.TotalCount()}
	if l.N > 0 {
		l.P50, l.P99 = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(99))
	}
	if open && u != nil && u.TotalCount() > 0 {
		l.HasU, l.UP50, l.UP99 = true, ms(u.ValueAtQuantile(50)), ms(u.ValueAtQuantile(99))
	}
	return l
}

func ms(us int64) float64 { return float64(us) / 1e3 }

// counts sorts error classes by count, then name.
func counts(m map[string]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, v := range m {
		out = append(out, Count{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Class < out[j].Class
	})
	return out
}
