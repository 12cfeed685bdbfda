package publish

import (
	"context"
	"math"
	"path/filepath"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// History reads the published runs back as the rows `history` prints from
// the local index (store.History), with each run's backend fingerprint
// for `regressions`. Merged percentiles come from merging the iterations'
// histograms exactly, as the local index does from .hlog files.
func History(ctx context.Context, cfg Config, q store.HistoryQuery) ([]analyze.HistoryPoint, error) {
	c, err := NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	docs, err := c.Search(ctx, Query{Target: q.Target, RunName: q.Run, Since: q.Since, Until: q.Until})
	if err != nil {
		return nil, err
	}
	pts := HistoryPoints(docs)
	if q.Limit > 0 && len(pts) > q.Limit {
		pts = pts[len(pts)-q.Limit:]
	}
	return pts, nil
}

// HistoryPoints groups documents (sorted as Search returns them) into one
// history row per run x target.
func HistoryPoints(docs []Document) []analyze.HistoryPoint {
	var out []analyze.HistoryPoint
	for i := 0; i < len(docs); {
		j := i + 1
		for j < len(docs) && docs[j].RunID == docs[i].RunID && docs[j].Target == docs[i].Target {
			j++
		}
		out = append(out, historyPoint(docs[i:j]))
		i = j
	}
	return out
}

func historyPoint(docs []Document) analyze.HistoryPoint {
	if docs[0].Kind == results.KindCapacity && docs[0].Capacity != nil {
		return capacityPoint(docs)
	}
	return loadPoint(docs)
}

// loadPoint is the row of a load's iterations.
func loadPoint(docs []Document) analyze.HistoryPoint {
	d := docs[0]
	r := store.HistoryRow{
		RunID: d.RunID, RunName: d.RunName, Start: d.RunStart, Imported: d.ImportedFrom != "", Tool: d.ImportedFrom,
		Partial: d.Partial, Host: d.Environment.Host, Model: d.Model, Concurrency: d.Concurrency, Rate: d.Rate,
		Target: d.Target, URL: d.URL, Iterations: len(docs), ThroughputMin: math.Inf(1),
	}
	var lat []results.Latency
	measured := true
	for _, x := range docs {
		f := x.Figures
		r.Requests += f.Requests
		r.Successes += f.Successes
		r.Throughput += f.ThroughputRPS / float64(len(docs))
		r.ThroughputMin = min(r.ThroughputMin, f.ThroughputRPS)
		r.ThroughputMax = max(r.ThroughputMax, f.ThroughputRPS)
		lat = append(lat, f.Latency)
		if f.Requests == 0 || len(f.Unavailable) > 0 {
			measured = false
		}
	}
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Successes) / float64(r.Requests)
	}
	if measured {
		avg := func(get func(results.Latency) float64) *float64 {
			s := 0.0
			for _, l := range lat {
				s += get(l)
			}
			s /= float64(len(lat))
			return &s
		}
		r.P50 = avg(func(l results.Latency) float64 { return l.P50 })
		r.P95 = avg(func(l results.Latency) float64 { return l.P95 })
		r.P99 = avg(func(l results.Latency) float64 { return l.P99 })
		r.MeanMs = avg(func(l results.Latency) float64 { return l.Mean })
	}
	if m, err := MergeHistograms(docs); err == nil && m.H.TotalCount() > 0 {
		l := m.Latency()
		r.P50Merged, r.P95Merged, r.P99Merged = &l.P50, &l.P95, &l.P99
	}
	p := analyze.HistoryPoint{Row: r}
	if e := d.Environment; e.BackendServer != "" || e.BackendSHA256 != "" || e.BackendError != "" {
		p.Fingerprint = &results.TargetFingerprint{Target: d.Target, URL: d.URL, Server: e.BackendServer, BodySHA256: e.BackendSHA256, Error: e.BackendError}
	}
	return p
}

// Rows drops the fingerprints: what `history` prints.
func Rows(pts []analyze.HistoryPoint) []store.HistoryRow {
	out := make([]store.HistoryRow, len(pts))
	for i, p := range pts {
		out[i] = p.Row
	}
	return out
}

// capacityPoint is a capacity search's row, as analyze.CapacityRow makes
// it from a local run: the capacity found, and the passing steps at it.
func capacityPoint(docs []Document) analyze.HistoryPoint {
	c := docs[0].Capacity
	s := results.CapacitySearch{Target: docs[0].Target, SLO: c.SLO, Capacity: c.CapacityRPS, FirstFail: c.FirstFailRPS, Sustained: c.SustainedRPS}
	var at []Document
	var rs []results.Result
	for _, d := range docs {
		if d.Capacity != nil && d.Capacity.Pass && s.Capacity > 0 && d.Capacity.OfferedRPS == s.Capacity {
			at = append(at, d)
			f := d.Figures
			rs = append(rs, results.Result{Target: d.Target, Iteration: d.Iteration, Requests: f.Requests,
				Successes: f.Successes, ThroughputRPS: f.ThroughputRPS, Latency: f.Latency, Unavailable: f.Unavailable})
		}
	}
	// The run's fields and fingerprint; CapacityRow replaces the figures.
	p := loadPoint(docs[:1])
	var merged *results.Latency
	if m, err := MergeHistograms(at); err == nil && m.H.TotalCount() > 0 {
		l := m.Latency()
		merged = &l
	}
	p.Kind, p.SLO = results.KindCapacity, &s.SLO
	p.Row = analyze.CapacityRow(p.Row, s, rs, merged)
	return p
}

// LocalHistory is History from the runs directory's own index: it reads
// the history of runsDir and each run's backend
// fingerprint from its run.json. A run whose run.json is gone keeps its
// row without a fingerprint.
func LocalHistory(runsDir string, q store.HistoryQuery) ([]analyze.HistoryPoint, error) {
	rows, err := store.History(runsDir, q)
	if err != nil {
		return nil, err
	}
	runs := map[string]*results.Run{}
	out := make([]analyze.HistoryPoint, 0, len(rows))
	for _, r := range rows {
		run, ok := runs[r.Dir]
		if !ok {
			dir := r.Dir
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(runsDir, dir)
			}
			run, _ = store.Read(dir)
			runs[r.Dir] = run
		}
		p := analyze.HistoryPoint{Row: r}
		if run != nil {
			for i := range run.Environment.Targets {
				if fp := run.Environment.Targets[i]; fp.Target == r.Target {
					p.Fingerprint = &fp
				}
			}
		}
		if run != nil && run.Kind == results.KindCapacity {
			if p, err = localCapacityPoint(p, run, runsDir); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}
