package analyze

import (
	"math"
	"slices"
	"sort"

	"github.com/authbench/authbench/pkg/results"
)

// KindNetworkRoundTrip is the finding that the network's round trip
// between authbench and a target is a large part of the target's latency,
// so the figures describe the path as much as the stack.
const KindNetworkRoundTrip = "network-round-trip"

// The round trip's measures (PathSplit.Measure), best first.
const (
	// MeasureConnect is the fastest TCP connect: SYN to SYN-ACK, one
	// round trip when the peer is the far end of the path.
	MeasureConnect = "tcp-connect"
	// MeasureTLS is the fastest TLS handshake: one round trip in TLS 1.3
	// (two in 1.2) plus the key exchange's CPU time. It carries the path
	// when something near accepts the TCP connection and delays only data
	// (a local proxy, such as the lab's fault proxy).
	MeasureTLS = "tls-handshake"
	// MeasureLabLink is the delay set on the lab's client link (lab up
	// --client-rtt, lab fault client --delay), when the engine saw no
	// handshake: plain HTTP through the fault proxy, or connections opened
	// before the measured iterations.
	MeasureLabLink = "lab-client-link"
)

// Thresholds of the round-trip finding.
const (
	// RoundTripShare is the share of P50 the round trip must reach for the
	// finding; RoundTripMain makes it the main part (and the finding a
	// warning, with the closed loop's bound).
	RoundTripShare = 0.25
	RoundTripMain  = 0.5
	// MinRoundTripMs is the smallest round trip reported: below it, a
	// handshake's own CPU time (key exchange, certificate checks) and the
	// scheduler on a busy host are of the same order as the path.
	MinRoundTripMs = 2.0
	// HandshakeRoundTrips bounds a TLS handshake's round trips (two in
	// TLS 1.2, plus its CPU time): a TCP connect shorter than the fastest
	// handshake over this is not the path's round trip but a local accept
	// (the fault proxy's took 3.2 ms, its handshakes 78 ms, with 50
	// workers dialling at once on 2 busy CPUs), and the handshake measures.
	HandshakeRoundTrips = 3.0
)

// PathSplit is how a target's median latency splits between the network
// round trip and the time the stack took itself, from the phases the
// engine measured.
type PathSplit struct {
	// RoundTripMs is the estimate: Measure's value, no more than the
	// fastest request (FastestMs), which crossed the path too. The fastest
	// time to first byte would be a tighter cap, but a worker descheduled
	// between its write and its clock read can time it near zero; a
	// whole request's time only grows with such delays.
	RoundTripMs float64
	// Measure is MeasureConnect, MeasureTLS or MeasureLabLink; MeasureMs
	// its value before the cap; Capped says the cap applied.
	Measure   string
	MeasureMs float64
	Capped    bool
	// ConnectMinMs and TLSMinMs are the fastest of each phase over the
	// target's iterations, FastestMs the fastest request (0: not measured).
	ConnectMinMs, TLSMinMs, FastestMs float64
	// P50Ms is the median of the iterations' P50; MeanMs their mean
	// latency; ServiceMs is P50Ms less the round trip: the stack's own
	// time, queueing included; Share is RoundTripMs over P50Ms.
	P50Ms, MeanMs, ServiceMs, Share float64
	// Workers is the closed loop's concurrency (0 in the open model);
	// BoundRPS is what it can reach over this path, Workers / P50Ms;
	// AchievedRPS the iterations' mean throughput.
	Workers               int
	BoundRPS, AchievedRPS float64
}

// SplitPath estimates a target's round trip from its results (one target's
// iterations) and splits its P50. ok is false when no measure of the path
// is available: an imported run without phase counts or minima, or plain
// HTTP over reused connections outside a lab with a client delay.
func SplitPath(run *results.Run, rs []results.Result) (PathSplit, bool) {
	var s PathSplit
	if run == nil || len(rs) == 0 {
		return s, false
	}
	s.ConnectMinMs = phaseMin(rs, "phases.connect", func(p results.Phases) results.Phase { return p.Connect })
	s.TLSMinMs = phaseMin(rs, "phases.tls", func(p results.Phases) results.Phase { return p.TLS })
	s.FastestMs = fastest(rs)
	s.P50Ms, s.MeanMs = medianP50(rs), avgOf(rs, func(r results.Result) float64 { return r.Latency.Mean })
	s.Measure, s.MeasureMs = pathMeasure(s.ConnectMinMs, s.TLSMinMs, run, rs)
	if s.Measure == "" || s.P50Ms <= 0 {
		return s, false
	}
	s.RoundTripMs = s.MeasureMs
	if s.FastestMs > 0 && s.FastestMs < s.RoundTripMs {
		s.RoundTripMs, s.Capped = s.FastestMs, true
	}
	s.RoundTripMs = math.Min(s.RoundTripMs, s.P50Ms)
	s.ServiceMs = s.P50Ms - s.RoundTripMs
	s.Share = s.RoundTripMs / s.P50Ms
	s.AchievedRPS = avgOf(rs, func(r results.Result) float64 { return r.ThroughputRPS })
	if len(closedOnly(rs)) == len(rs) && run.Plan.Load.Concurrency > 0 {
		s.Workers = run.Plan.Load.Concurrency
		s.BoundRPS = float64(s.Workers) / s.P50Ms * 1000
	}
	return s, true
}

// pathMeasure picks the round trip's measure. A TCP connect far shorter
// than the fastest handshake, or than the lab's client delay, is a local
// accept (the fault proxy's) rather than the round trip. A handshake that
// crossed the lab's client link carried its delay, so the link's setting
// stands in only where no handshake was timed: plain HTTP, or connections
// opened before the measured iterations.
func pathMeasure(connect, tls float64, run *results.Run, rs []results.Result) (string, float64) {
	lab, _ := labClientDelay(run, rs)
	switch {
	case connect >= MinRoundTripMs && connect >= tls/HandshakeRoundTrips && connect >= lab/HandshakeRoundTrips:
		return MeasureConnect, connect
	case tls >= MinRoundTripMs:
		return MeasureTLS, tls
	case lab > 0 && tls == 0:
		return MeasureLabLink, lab
	}
	return "", 0
}

// Reported reports whether the split is worth a finding: a round trip of
// at least MinRoundTripMs that is at least RoundTripShare of P50.
func (s PathSplit) Reported() bool {
	return s.Measure != "" && s.RoundTripMs >= MinRoundTripMs && s.Share >= RoundTripShare
}

// phaseMin is the fastest value of one phase over rs, from the results
// that measured it (a count, and the key not listed unavailable); 0 when
// none did. Imported runs without counts never qualify: hey's dial-up
// figure has no fastest, and its mean is spread over reused connections.
func phaseMin(rs []results.Result, key string, get func(results.Phases) results.Phase) float64 {
	m := 0.0
	for _, r := range rs {
		if slices.Contains(r.Unavailable, "phases") || slices.Contains(r.Unavailable, key) ||
			slices.Contains(r.Unavailable, "phases.count") {
			continue
		}
		p := get(r.Phases)
		if p.Count == 0 || p.Min <= 0 {
			continue
		}
		if m == 0 || p.Min < m {
			m = p.Min
		}
	}
	return m
}

// fastest is the fastest request over rs, from the results that measured
// it; 0 when none did.
func fastest(rs []results.Result) float64 {
	m := 0.0
	for _, r := range rs {
		if r.Latency.Min > 0 && !slices.Contains(r.Unavailable, "min") && (m == 0 || r.Latency.Min < m) {
			m = r.Latency.Min
		}
	}
	return m
}

// medianP50 is the median of the iterations' measured P50s.
func medianP50(rs []results.Result) float64 {
	var xs []float64
	for _, r := range rs {
		if r.Latency.P50 > 0 && !slices.Contains(r.Unavailable, "p50") {
			xs = append(xs, r.Latency.P50)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// labClientDelay is the delay on the lab's client link while rs ran: the
// one in force when the first began, provided no client fault changed
// during them.
func labClientDelay(run *results.Run, rs []results.Result) (float64, bool) {
	start, end := rs[0].Start, rs[len(rs)-1].End
	delay := 0.0
	for _, ev := range run.Faults {
		if ev.Link != results.LinkClient {
			continue
		}
		if !start.IsZero() && ev.At.After(start) && (end.IsZero() || ev.At.Before(end)) {
			return 0, false
		}
		switch ev.Action {
		case results.FaultSet:
			// A fault set on a link replaces the link's previous one.
			delay = ev.DelayMs
		case results.FaultClear:
			delay = 0
		}
	}
	return delay, delay > 0
}
