package ladder

import (
	"fmt"
	"math"
	"strings"
)

// loadNotes say where the schedule was not kept: a rung that fell behind
// the rate (every worker busy: it queued) and, once for the whole ladder,
// a load generator that sent late because the host was busy.
func (l *ladderRun) loadNotes() []string {
	var notes []string
	for _, s := range l.slots {
		if s.unsent > 0 {
			notes = append(notes, fmt.Sprintf("%s could not keep up with %.0f req/s in round(s) %s (%d requests never sent): its latency includes queueing.",
				s.layer, l.rate, joinInts(s.behind), s.unsent))
		}
	}
	if f := l.lateFraction(); f > 0.05 {
		notes = append(notes, fmt.Sprintf("The load generator sent %.0f%% of requests more than 1 ms after their scheduled time: the host was busy. "+
			"Latency counts from the schedule, so every rung carries that delay; it cancels in the differences only on average.", 100*f))
	}
	return notes
}

// lateFraction is the share of the turns' requests sent late (open loop).
func (l *ladderRun) lateFraction() float64 {
	var late, sent int64
	for _, r := range l.run.Results {
		if r.LateSends != nil {
			late += *r.LateSends
			sent += r.Requests
		}
	}
	if sent == 0 {
		return 0
	}
	return math.Round(1e4*float64(late)/float64(sent)) / 1e4
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
