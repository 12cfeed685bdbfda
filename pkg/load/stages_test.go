package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestStagedAttack runs a short three-stage schedule against a local
// server: every scheduled request is sent once, each stage counts exactly
// its own, and the stages add up to the whole.
func TestStagedAttack(t *testing.T) {
	s, served := countingServer(t)
	ss := mustStages(t, "400ms:200,400ms:200-600,400ms:100")
	sched := newSchedule(ss, 1, 0)
	a := attacker(t, plan.Client{})
	m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Stages: ss, Concurrency: 10})
	if r.Model != plan.Open || len(r.Stages) != len(ss) {
		t.Fatalf("model %s with %d stages, want open with %d", r.Model, len(r.Stages), len(ss))
	}
	if r.Requests != sched.scheduled() || served.Load() != r.Requests {
		t.Fatalf("sent %d, server saw %d, want %d", r.Requests, served.Load(), sched.scheduled())
	}
	if want := ss.Mean(); r.TargetRPS != want {
		t.Errorf("target %g req/s, want the stages' mean %g", r.TargetRPS, want)
	}
	var sum int64
	for i, st := range r.Stages {
		sum += st.Requests
		if st.Stage != i+1 || st.Spec != ss[i].String() || st.Scheduled != sched.stageScheduled(i) || st.Requests != st.Scheduled || st.Unsent != 0 {
			t.Errorf("stage %d: %+v, want %s with %d requests", i+1, st, ss[i], sched.stageScheduled(i))
		}
		if st.Status["200"] != st.Requests || st.Latency.P99 <= 0 || st.LatencyUncorrected.P50 <= 0 {
			t.Errorf("stage %d: status %v, latency %+v", i+1, st.Status, st.Latency)
		}
		if d := st.End.Sub(st.Start); d != ss[i].Duration.D() {
			t.Errorf("stage %d window %s, want %s", i+1, d, ss[i].Duration)
		}
		// Loose: a loaded host sends late; the 5% bound is the integration test's.
		if st.AchievedRPS < st.TargetRPS*0.5 || st.AchievedRPS > st.TargetRPS*1.5 {
			t.Errorf("stage %d achieved %.1f req/s, want about %g", i+1, st.AchievedRPS, st.TargetRPS)
		}
	}
	if sum != r.Requests {
		t.Errorf("stages count %d requests, the result %d", sum, r.Requests)
	}
	c, u := m.StageHistograms(1)
	if c == nil || u == nil || c.TotalCount() != r.Stages[1].Requests {
		t.Errorf("stage 2's histograms missing or miscounted")
	}
}

// TestStagedCorrection checks that a stage's latency runs from intended
// send time: a server that stalls in the second stage makes that stage's
// corrected latency exceed its uncorrected one, and leaves the first
// stage's untouched.
func TestStagedCorrection(t *testing.T) {
	const stall = 300 * time.Millisecond
	ss := mustStages(t, "500ms:40,500ms:40")
	start := time.Now()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Since(start); d > 600*time.Millisecond && d < 600*time.Millisecond+stall {
			time.Sleep(stall)
		}
	}))
	t.Cleanup(s.Close)
	a := attacker(t, plan.Client{})
	start = time.Now()
	r := a.Attack(context.Background(), Request{URL: s.URL}, Spec{Stages: ss, Concurrency: 1}).Result()
	first, second := r.Stages[0], r.Stages[1]
	if second.Latency.Max < float64(stall.Milliseconds())/2 || second.Latency.P99 <= second.LatencyUncorrected.P99 {
		t.Errorf("stalled stage: corrected %+v, uncorrected %+v; want the wait counted", second.Latency, second.LatencyUncorrected)
	}
	if first.Latency.P99 >= float64(stall.Milliseconds())/2 {
		t.Errorf("first stage p99 %g ms: the second stage's stall leaked into it", first.Latency.P99)
	}
}

// TestStagedInterrupted cancels a staged attack in its second stage: the
// result is partial, nothing counts as unsent, and the stage windows end
// where the attack did.
func TestStagedInterrupted(t *testing.T) {
	s, _ := countingServer(t)
	ss := mustStages(t, "300ms:100,2s:100,1s:100")
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	a := attacker(t, plan.Client{})
	m := a.Attack(ctx, Request{URL: s.URL}, Spec{Stages: ss, Concurrency: 4})
	r := m.Result()
	assertClean(t, r)
	if !m.Partial() || len(r.Stages) != 3 {
		t.Fatalf("partial %v with %d stages, want a partial result with 3", m.Partial(), len(r.Stages))
	}
	var sum int64
	for _, st := range r.Stages {
		sum += st.Requests
		if st.Unsent != 0 || st.End.After(r.End.Add(time.Millisecond)) || st.End.Before(st.Start) {
			t.Errorf("stage %d: unsent %d, window %s..%s, attack end %s", st.Stage, st.Unsent, st.Start, st.End, r.End)
		}
	}
	if sum != r.Requests || r.Stages[0].Requests != 30 || r.Stages[2].Requests != 0 {
		t.Errorf("stage requests %d/%d/%d (sum %d), result %d: want the first stage whole and the last unreached",
			r.Stages[0].Requests, r.Stages[1].Requests, r.Stages[2].Requests, sum, r.Requests)
	}
}
