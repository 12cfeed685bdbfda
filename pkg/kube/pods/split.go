package pods

import (
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/load"
)

// Share is one pod's part of a phase.
type Share struct {
	// Spec is the load the pod sends.
	Spec load.Spec `json:"spec"`
	// Offset delays the pod's start after the common start: in the open
	// model pod i's first slot is slot i, due i/Rate after the start.
	Offset time.Duration `json:"offset"`
}

// Split divides s among n pods so that the union is exactly s: closed
// loop, requests and workers are divided (the first pods take one more
// of each remainder); open loop, pod i sends the slots k ≡ i (mod n) of
// the single schedule: rate/n from the start plus i/rate, each slot's
// latency still corrected from its own intended time. A duration is the
// same for every pod.
func Split(s load.Spec, n int) ([]Share, error) {
	if n < 1 {
		return nil, fmt.Errorf("splitting load: %d pods", n)
	}
	out := make([]Share, n)
	for i := range out {
		p := s
		p.Concurrency = part(max(s.Concurrency, 1), n, i)
		switch {
		case len(s.Stages) > 0:
			// A staged schedule is not a rate to divide: each pod sends
			// every n-th slot of the one timeline, from the common start.
			p.Stride, p.Slot = n, i
			out[i] = Share{Spec: p}
		case s.Rate > 0:
			out[i] = openShare(p, n, i)
		default:
			if s.Duration <= 0 {
				p.Requests = part(s.Requests, n, i)
			}
			out[i] = Share{Spec: p}
		}
		// A pod with nothing to send needs no worker (a warm-up of fewer
		// requests than pods); any other pod needs one.
		idle := s.Duration <= 0 && out[i].Spec.Requests == 0
		if p.Concurrency == 0 && !idle {
			return nil, fmt.Errorf("splitting load: %d pods need a concurrency (-c) of at least %d, not %d", n, n, max(s.Concurrency, 1))
		}
	}
	return out, nil
}

// openShare is pod i's slots of the open schedule.
func openShare(p load.Spec, n, i int) Share {
	total := p.Rate
	p.Rate = total / float64(n)
	off := time.Duration(float64(i) * 1e9 / total)
	if p.Duration > 0 {
		p.Duration -= off
	} else {
		// Slots i, i+n, ... below Requests.
		p.Requests = max((p.Requests-int64(i)+int64(n)-1)/int64(n), 0)
	}
	return Share{Spec: p, Offset: off}
}

// part is the i-th of n near-equal parts of total, summing to total.
func part[T int | int64](total T, n, i int) T {
	q, r := total/T(n), total%T(n)
	if T(i) < r {
		return q + 1
	}
	return q
}
