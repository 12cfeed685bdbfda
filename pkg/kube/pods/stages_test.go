package pods

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
)

// TestSplitStagesMergeExact splits a staged schedule among pods, runs
// each share's attack, sends its end line through the wire format, and
// merges: every stage counts exactly the schedule's requests, and its
// percentiles come from histograms holding every answered request.
func TestSplitStagesMergeExact(t *testing.T) {
	ss, err := plan.ParseStages("300ms:100,300ms:100-300")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	spec := load.Spec{Model: plan.Open, Stages: ss, Duration: ss.Total().D(), Concurrency: 6}
	const pods = 3
	shares, err := Split(spec, pods)
	if err != nil {
		t.Fatal(err)
	}
	a, err := load.NewAttacker(plan.Client{Timeout: plan.Duration(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	ends := make([]*Line, pods)
	var wg sync.WaitGroup
	for i, sh := range shares {
		if sh.Spec.Stride != pods || sh.Spec.Slot != i || sh.Offset != 0 || sh.Spec.Duration != spec.Duration {
			t.Fatalf("pod %d share %+v: want every %d-th slot from %d, no offset, the whole duration", i, sh, pods, i)
		}
		wg.Go(func() {
			m := a.Attack(context.Background(), load.Request{URL: srv.URL}, sh.Spec)
			res := m.Result()
			ends[i] = wireTrip(t, &Line{Kind: KindEnd, Result: &res, Stages: stageHists(m, len(res.Stages))})
		})
	}
	wg.Wait()
	got := mergeStages(ends)
	if len(got) != len(ss) {
		t.Fatalf("%d merged stages, want %d", len(got), len(ss))
	}
	for i, st := range got {
		want := int64(ss[i].Requests() + 0.5)
		if st.Scheduled != want || st.Requests != want || st.Status["200"] != want {
			t.Errorf("stage %d: scheduled %d, requests %d, 200s %d; want %d each", i+1, st.Scheduled, st.Requests, st.Status["200"], want)
		}
		if st.Latency.P99 <= 0 || st.Latency.P99 > st.Latency.Max || st.LatencyUncorrected.P50 <= 0 {
			t.Errorf("stage %d latency %+v from merged histograms", i+1, st.Latency)
		}
		if st.AchievedRPS < st.TargetRPS*0.5 || st.AchievedRPS > st.TargetRPS*1.5 {
			t.Errorf("stage %d: pods achieved %.1f req/s together, want about %g", i+1, st.AchievedRPS, st.TargetRPS)
		}
	}
}

func wireTrip(t *testing.T, l *Line) *Line {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Error(err)
		return l
	}
	back, err := ParseLine(b)
	if err != nil {
		t.Error(err)
		return l
	}
	return &back
}

// TestStagedShareWire: a staged share reaches the pod as it was split.
func TestStagedShareWire(t *testing.T) {
	ss, err := plan.ParseStages("30s:100,1m:100-500")
	if err != nil {
		t.Fatal(err)
	}
	shares, err := Split(load.Spec{Model: plan.Open, Stages: ss, Duration: ss.Total().D(), Concurrency: 4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(shares[1])
	if err != nil {
		t.Fatal(err)
	}
	var back Share
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Spec.Stages.String() != ss.String() || back.Spec.Stride != 2 || back.Spec.Slot != 1 || back.Spec.Duration != ss.Total().D() {
		t.Fatalf("share after the wire: %+v", back.Spec)
	}
}
