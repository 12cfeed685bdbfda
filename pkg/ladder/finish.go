package ladder

import (
	"context"
	"fmt"
	"slices"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// finish attributes the latency, reads the gateway's timings, diagnoses
// and records the run directory (its sinks add summary.md and the HTML
// report with the waterfall). The results are written even when the
// attribution fails (an interrupted ladder may lack a rung).
func (l *ladderRun) finish(ctx context.Context, interrupted bool) (*Outcome, error) {
	lad, aerr := l.attribute()
	if aerr == nil {
		if l.o.Gateway != nil {
			l.hops(context.WithoutCancel(ctx), lad)
		}
		l.run.Ladder = lad
	}
	l.s.Finish(interrupted)
	o := l.s.Outcome()
	out := &Outcome{Dir: o.Dir, Run: o.Run, Timeline: o.Timeline, Ladder: l.run.Ladder}
	if err := l.s.Write(ctx); err != nil {
		return out, err
	}
	if aerr != nil {
		return out, aerr
	}
	return out, runner.Interrupted(l.run)
}

// attribute turns the merged rung histograms into the ladder's figures.
func (l *ladderRun) attribute() (*results.Ladder, error) {
	in := analyze.LadderInput{EndToEnd: len(l.slots) - 1, PerMs: 1000,
		Resamples: l.o.Resamples, Seed: l.o.Seed, Confidence: l.o.Confidence}
	index := map[string]int{}
	for i, s := range l.slots {
		in.Hists = append(in.Hists, s.merged())
		in.Rounds = append(in.Rounds, s.hists)
		in.Names = append(in.Names, s.layer)
		index[s.layer] = i
	}
	for _, name := range l.layers {
		layer := analyze.LadderLayer{Name: name, Rung: -1, ExtAuthz: slices.Contains(l.o.ExtAuthz, name)}
		if i, ok := index[name]; ok {
			s := l.slots[i]
			layer.Rung, layer.ExtAuthz, layer.URL, layer.CapacityRPS = i, s.extAuthz, s.url, s.probe.GoodputRPS
		}
		in.Layers = append(in.Layers, layer)
	}
	lad, err := analyze.AttributeLadder(in)
	if err != nil {
		return nil, err
	}
	l.describe(lad)
	return lad, nil
}

// describe fills what the measurement, not the arithmetic, knows.
func (l *ladderRun) describe(lad *results.Ladder) {
	o, spec := l.o, l.spec()
	lad.Target, lad.Stack, lad.Rounds, lad.Concurrency = l.target.Name, o.Stack, o.Rounds, spec.Concurrency
	lad.Model, lad.RateRPS, lad.RateFraction = spec.Model, l.rate, l.fraction
	lad.SlotDurationS, lad.SlotRequests, lad.LateSendFraction = spec.Duration.Seconds(), spec.Requests, l.lateFraction()
	for _, s := range l.slots {
		lad.Order = append(lad.Order, s.layer)
		lad.Rungs = append(lad.Rungs, l.rungRecord(s))
	}
	notes := append(slices.Clone(l.notes), l.loadNotes()...)
	notes = append(notes, driftNotes(l.run.Results, l.slots)...)
	lad.Notes = append(append(notes, lad.Notes...), l.standardNotes(lad)...)
}

func (l *ladderRun) rungRecord(s *slot) results.LadderRung {
	kind := results.LayerInline
	if s.extAuthz {
		kind = results.LayerExtAuthz
	}
	r := results.LadderRung{Layer: s.layer, URL: s.url, Kind: kind, Target: s.name, Status: s.fp.Status,
		BodySHA256: s.fp.BodySHA256, CapacityRPS: s.probe.GoodputRPS,
		CapacitySuccessRate: s.probe.SuccessRate, CapacityP50Ms: s.probe.Latency.P50}
	if s.layer == results.EndToEnd {
		r.Kind = ""
	}
	for _, res := range l.run.Results {
		if res.Target == s.name {
			r.Requests += res.Requests
			r.Successes += res.Successes
		}
	}
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Successes) / float64(r.Requests)
	}
	if h := s.merged(); h != nil {
		var v [3]float64
		for i, p := range results.LadderPercentiles {
			v[i] = float64(h.ValueAtQuantile(p)) / 1000
		}
		r.LatencyMs = results.QuantilesOf(v)
	}
	return r
}

// standardNotes say how to read the figures; they hold for every ladder.
func (l *ladderRun) standardNotes(lad *results.Ladder) []string {
	notes := []string{
		"Percentiles do not add: a layer's added P95 is how far it moves the P95 (its rung's P95 minus the P95 of the rung inside it), " +
			"not the P95 of the time spent in it, so an added figure can be negative or exceed the layer's own tail. " +
			"The layers' figures sum to the outermost rung's percentile by construction; the unattributed remainder is the separately measured " +
			"end-to-end figure minus that sum (layers with no rung outside the outermost one, plus sampling noise): " +
			"an interval containing zero means the layers account for the end-to-end latency.",
		fmt.Sprintf("The innermost layer's figure (%s) is its whole rung: the backend plus the client's own path to it.", l.slots[0].layer),
		fmt.Sprintf("Intervals are %.0f%% bootstrap intervals (%d resamples) that resample the %d round(s) — the same rounds for every rung, "+
			"so drift common to a round cancels in the differences — and then the requests of the rounds drawn: "+
			"they cover sampling noise and drift between rounds, not a bias every round shares.", lad.Confidence*100, lad.Resamples, l.o.Rounds),
		"Capacities are closed-loop probes from this host: a rung faster than the load generator reads as the generator's limit, " +
			"and where every component shares the host's cores an outer rung's capacity is the host's.",
	}
	if a := l.authLayer(); a != "" {
		notes = append(notes, fmt.Sprintf("%s is an ext_authz service measured on its own rung: its figure is its rung minus the backend's "+
			"(one hop to a trivial server), and the layer calling it has that figure subtracted from its own. Called by the gateway it may cost more "+
			"(other headers, the gateway's connections, the host's load), and that difference lands in the gateway's figure; "+
			"the gateway's own timing of the subrequest, where it logs one, tells.", a))
	}
	if l.o.Closed {
		notes = append(notes, "Closed loop: every rung runs at its own saturation, so its latency is mostly queueing (concurrency / throughput); "+
			"the attribution then compares queues, not service times. The open loop (the default) avoids this.")
	} else if l.fraction > 0 {
		notes = append(notes, l.rateNote())
	}
	return notes
}

// rateNote says what the open loop's rate means for queueing: waiting
// grows as utilisation/(1-utilisation), so at half the weakest capacity
// it stays small, and above it the weakest rungs' figures include it.
func (l *ladderRun) rateNote() string {
	w := l.weakest()
	s := fmt.Sprintf("Open loop at %.0f req/s on every rung: %.0f%% of the weakest capacity (%s, %.0f req/s)",
		l.rate, l.fraction*100, w.layer, w.probe.GoodputRPS)
	if l.fraction <= DefaultRateFraction {
		return s + ", so no rung should queue much: the figures are service times."
	}
	return s + ": the rungs near that capacity queue, and their figures include waiting, which grows steeply towards capacity."
}

// ReportFile is the HTML report a ladder run directory holds (the
// CLI's HTML sink writes it).
const ReportFile = "report.html"
