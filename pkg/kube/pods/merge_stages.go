package pods

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
)

// stageHists encodes the attack's per-stage histograms for the end line.
func stageHists(m *load.Metrics, n int) []StageHist {
	var out []StageHist
	for i := range n {
		c, u := m.StageHistograms(i)
		var sh StageHist
		sh.Hist, _ = EncodeHist(c)
		sh.Uncorrected, _ = EncodeHist(u)
		out = append(out, sh)
	}
	return out
}

// mergeStages merges the delivered pods' stages as mergeResults merges
// their totals: counts and achieved rates summed (each pod sent its slots
// of the one schedule), percentiles read from the merged histograms.
func mergeStages(ends []*Line) []results.Stage {
	var out []results.Stage
	for i := 0; ; i++ {
		var parts []results.Stage
		var lat, ulat []weighted
		var h, u *hdr.Histogram
		for _, e := range ends {
			if i >= len(e.Result.Stages) {
				continue
			}
			st := e.Result.Stages[i]
			parts = append(parts, st)
			n := answeredIn(st)
			lat, ulat = append(lat, weighted{st.Latency, n}), append(ulat, weighted{st.LatencyUncorrected, n})
			if i < len(e.Stages) {
				h, u = mergeEncoded(h, e.Stages[i].Hist), mergeEncoded(u, e.Stages[i].Uncorrected)
			}
		}
		if len(parts) == 0 {
			return out
		}
		st := sumStages(parts)
		st.Latency, st.LatencyUncorrected = mergeLatency(lat, h), mergeLatency(ulat, u)
		out = append(out, st)
	}
}

// answeredIn counts a stage's answered requests: those its latency covers.
func answeredIn(st results.Stage) int64 {
	var n int64
	for _, v := range st.Status {
		n += v
	}
	return n
}

// sumStages adds the pods' parts of one stage; its schedule is theirs.
func sumStages(parts []results.Stage) results.Stage {
	out := parts[0]
	out.Status, out.Errors = map[string]int64{}, map[string]int64{}
	out.Scheduled, out.Requests, out.Successes, out.LateSends, out.Unsent, out.AchievedRPS = 0, 0, 0, 0, 0, 0
	for _, p := range parts {
		if p.Start.Before(out.Start) {
			out.Start = p.Start
		}
		if p.End.After(out.End) {
			out.End = p.End
		}
		out.Scheduled += p.Scheduled
		out.Requests += p.Requests
		out.Successes += p.Successes
		out.LateSends += p.LateSends
		out.Unsent += p.Unsent
		out.AchievedRPS += p.AchievedRPS
		addCounts(out.Status, p.Status)
		addCounts(out.Errors, p.Errors)
	}
	out.DurationS = out.End.Sub(out.Start).Seconds()
	out.SuccessRate = 0
	if out.Requests > 0 {
		out.SuccessRate = float64(out.Successes) / float64(out.Requests)
	}
	if math.IsNaN(out.AchievedRPS) || math.IsInf(out.AchievedRPS, 0) {
		out.AchievedRPS = 0
	}
	return out
}
