package publish

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// capacityFixture writes a capacity run of target api as runner.Capacity
// lays it out: one Result per step (Iteration = step, TargetRPS = offered
// rate) and capacity.json, written by pkg/capacity's own type. The
// capacity found is 300 req/s, passed by steps 4 and 6.
func capacityFixture(t *testing.T, runs string, start time.Time) string {
	dir, err := store.NewRunDir(runs, "cap", start)
	if err != nil {
		t.Fatal(err)
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "cap", ID: "cap-" + start.Format(store.DirTimeFormat),
		Start: start, Kind: results.KindCapacity}
	run.Plan.Load.Concurrency, run.Plan.Load.Rate = 10, 100
	run.Plan.Targets = []plan.Target{{Name: "api", URL: "http://127.0.0.1:1/api"}}
	slo := plan.SLO{P99: plan.Duration(100 * time.Millisecond)}
	search := &capacity.Result{Target: "api", SLO: slo, Capacity: 300, FirstFail: 350, Sustained: 290}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, st := range []struct {
		rate float64
		pass bool
		ms   float64
	}{{100, true, 5}, {200, true, 6}, {400, false, 90}, {300, true, 8}, {350, false, 70}, {300, true, 9}} {
		r := fixtureResult(t, dir, "api", i+1, start, st.ms, rng)
		r.Model, r.TargetRPS = plan.Open, st.rate
		run.Results = append(run.Results, r)
		search.Steps = append(search.Steps, capacity.Step{N: i + 1, Pass: st.pass, CapacityPoint: capacity.Point{Offered: st.rate}})
	}
	must(t, store.WriteJSON(filepath.Join(dir, capacity.File), []*capacity.Result{search}))
	must(t, store.Write(dir, run))
	return dir
}

// A capacity run is one history row standing for the capacity found,
// the same from the local index and from published documents, whose
// steps are marked with their offered rate.
func TestCapacityRunHistory(t *testing.T) {
	runs := t.TempDir()
	dir := capacityFixture(t, runs, day0)
	docs, err := Documents(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if d.Kind != results.KindCapacity || d.Capacity == nil || d.Capacity.CapacityRPS != 300 {
			t.Fatalf("doc %d: kind %q capacity %+v", i, d.Kind, d.Capacity)
		}
	}
	if docs[2].Capacity.OfferedRPS != 400 || docs[2].Capacity.Pass || !docs[3].Capacity.Pass {
		t.Errorf("steps 3 and 4: %+v %+v", docs[2].Capacity, docs[3].Capacity)
	}
	local, err := LocalHistory(runs, store.HistoryQuery{})
	if err != nil || len(local) != 1 {
		t.Fatalf("local history: %d rows, %v", len(local), err)
	}
	l, p := local[0], HistoryPoints(docs)[0]
	if !l.IsCapacity() || !p.IsCapacity() || l.SLO == nil || *l.SLO != *p.SLO {
		t.Fatalf("kinds %q %q, SLOs %v %v", l.Kind, p.Kind, l.SLO, p.SLO)
	}
	want := docs[3].Figures.Requests + docs[5].Figures.Requests
	if l.Row.Throughput != 300 || l.Row.Iterations != 2 || l.Row.Requests != want || l.Row.Rate != 0 {
		t.Errorf("local row %+v, want capacity 300 over steps 4 and 6 (%d requests)", l.Row, want)
	}
	m, err := MergeHistograms([]Document{docs[3], docs[5]})
	if err != nil {
		t.Fatal(err)
	}
	if l.Row.P99Merged == nil || *l.Row.P99Merged != m.Latency().P99 {
		t.Errorf("local p99 at capacity %v, want the two steps merged %g", l.Row.P99Merged, m.Latency().P99)
	}
	lr, pr := l.Row, p.Row
	if lr.Throughput != pr.Throughput || lr.Requests != pr.Requests || lr.Iterations != pr.Iterations ||
		*lr.P99Merged != *pr.P99Merged || *lr.P50 != *pr.P50 || lr.SuccessRate != pr.SuccessRate {
		t.Errorf("published row %+v differs from local %+v", pr, lr)
	}
}
