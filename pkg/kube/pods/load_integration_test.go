//go:build integration

package pods_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

func TestPods(t *testing.T) {
	e := setup(t)
	t.Run("closed loop 30000 exact", e.closedExact)
	t.Run("open loop follows the schedule", e.openSchedule)
	t.Run("a killed pod leaves a partial run", e.killedPod)
	t.Run("io path the pods' seccomp profile allows", e.ioPaths)
	t.Run("each pod refreshes its oidc token", e.oidcRefresh)
}

func (e *env) closedExact(t *testing.T) {
	log := &syncBuf{t: t}
	// One connection per pod: with more, three processes time-sliced on
	// 2 cores run in bursts (a lower p50, a higher p99 than one process:
	// measured 0.05 vs 0.15 ms and 3.5 vs 1.4 ms at -c 12), which says
	// nothing about the merge this test is for.
	l := plan.Load{Requests: 30000, Concurrency: 3, Iterations: 1}
	// One-process runs before and after, interleaved with the pods' run,
	// so that the machine's drift shows in the reference.
	before := e.local(t, l)
	o, err := e.run(t, e.plan("pods-closed", l), e.executor(t, log), log, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	after := e.local(t, l)
	r := o.Run.Results[0]
	if r.Requests != 30000 || r.Status["200"] != 30000 {
		t.Errorf("counted %d requests (%v), want exactly 30000 answered 200", r.Requests, r.Status)
	}
	if n := hlogCount(t, filepath.Join(o.Dir, r.HistogramFile)); n != 30000 {
		t.Errorf("the merged .hlog holds %d, want exactly 30000", n)
	}
	if r.Pods == nil || r.Pods.Completed != 3 || len(r.Pods.Pods) != 3 {
		t.Fatalf("pods: %+v", r.Pods)
	}
	var sum int64
	for _, p := range r.Pods.Pods {
		sum += p.Requests
	}
	if sum != 30000 {
		t.Errorf("per-pod requests add up to %d", sum)
	}
	t.Logf("pods p50 %.3f p99 %.3f ms; one process before p50 %.3f p99 %.3f ms, after p50 %.3f p99 %.3f ms; start spread %.1f ms",
		r.Latency.P50, r.Latency.P99, before.P50, before.P99, after.P50, after.P99, r.Pods.StartSpreadMs)
	lo50, hi50 := min(before.P50, after.P50), max(before.P50, after.P50)
	if r.Latency.P50 > 2*hi50 || r.Latency.P50 < lo50/2 {
		t.Errorf("p50 %.3f ms from pods: beyond 2x of one process's %.3f..%.3f ms", r.Latency.P50, lo50, hi50)
	}
	lo99, hi99 := min(before.P99, after.P99), max(before.P99, after.P99)
	if r.Latency.P99 > 3*hi99+1 || r.Latency.P99 < (lo99-1)/3 {
		t.Errorf("p99 %.3f ms from pods: beyond 3x+1ms of one process's %.3f..%.3f ms", r.Latency.P99, lo99, hi99)
	}
}

// local runs l from this process against the same target.
func (e *env) local(t *testing.T, l plan.Load) results.Latency {
	o, err := runner.Run(context.Background(), runner.Options{Plan: e.plan("local-closed", l), Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return o.Run.Results[0].Latency
}

func (e *env) openSchedule(t *testing.T) {
	log := &syncBuf{t: t}
	const rate, secs = 600.0, 5
	l := plan.Load{Rate: rate, Duration: plan.Duration(secs * time.Second), Concurrency: 30, Iterations: 1}
	o, err := e.run(t, e.plan("pods-open", l), e.executor(t, log), log, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	r := o.Run.Results[0]
	want := int64(rate * secs)
	var unsent int64
	if r.Unsent != nil {
		unsent = *r.Unsent
	}
	// The union of the pods' slots is the single schedule: every slot
	// was sent, or is counted unsent (a backlog the engine abandons at
	// the end of -z when a pod stalled), and pod i had exactly the slots
	// k ≡ i (mod 3): 1000 each here.
	if r.Requests+unsent != want {
		t.Errorf("%d requests + %d unsent; the single schedule has %d slots", r.Requests, unsent, want)
	}
	if r.AchievedRPS == nil || *r.AchievedRPS < rate*0.99 || *r.AchievedRPS > rate*1.01 {
		t.Errorf("achieved %v rps, want within 1%% of %g", deref(r.AchievedRPS), rate)
	}
	if r.Requests < want*99/100 {
		t.Errorf("%d of %d slots sent: below 99%%", r.Requests, want)
	}
	for _, p := range r.Pods.Pods {
		if p.Requests+p.Unsent != want/3 {
			t.Errorf("pod %d sent %d (+%d unsent), its slots are %d", p.Index, p.Requests, p.Unsent, want/3)
		}
		// The slot counts are the exact assertion; the start skew (a pod's
		// timer firing late on a busy 2-core node) is reported, and only a
		// gross miss fails.
		if p.StartSkewMs < -1 || p.StartSkewMs > 150 {
			t.Errorf("pod %d started %.1f ms from its first slot", p.Index, p.StartSkewMs)
		}
	}
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func (e *env) killedPod(t *testing.T) {
	log := &syncBuf{t: t}
	l := plan.Load{Duration: plan.Duration(8 * time.Second), Concurrency: 6, Iterations: 1}
	x := e.executor(t, log)
	kill := func() {
		for !strings.Contains(log.String(), "3 of 3 ready") {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(5 * time.Second) // the 2 s start delay, then 3 s of load
		podsPath := kubeapi.Path("api", "v1", "namespaces", "default", "pods")
		_, b, _ := e.api.Do(context.Background(), "GET", podsPath.With("labelSelector", pods.RunLabel+"="+x.ID()), "", nil)
		name := podOfIndex(b, "1")
		code, _, err := e.api.Do(context.Background(), "DELETE", podsPath.Join(name).With("gracePeriodSeconds", "0"), "", nil)
		t.Logf("deleted pod %s: %d %v", name, code, err)
	}
	o, err := e.run(t, e.plan("pods-killed", l), x, log, kill)
	if !errors.Is(err, runner.ErrInterrupted) || o == nil || !o.Run.Partial {
		t.Fatalf("run: %v; want a partial run", err)
	}
	r := o.Run.Results[0]
	if r.Pods == nil || r.Pods.Completed != 2 || r.Pods.Coverage.Pods != 2 {
		t.Fatalf("pods: %+v; want 2 of 3 completed", r.Pods)
	}
	var healthy int64
	for _, p := range r.Pods.Pods {
		switch {
		case p.Index == 1 && p.State != results.PodFailed:
			t.Errorf("pod 1 is %s, want failed", p.State)
		case p.Index != 1 && (p.State != results.PodCompleted || p.Requests == 0):
			t.Errorf("pod %d: %s with %d requests", p.Index, p.State, p.Requests)
		case p.Index != 1:
			healthy += p.Requests
		}
	}
	if r.Requests != healthy || r.Pods.Coverage.Requests != healthy {
		t.Errorf("merged %d requests, coverage %d; the healthy pods sent %d", r.Requests, r.Pods.Coverage.Requests, healthy)
	}
	if !strings.Contains(log.String(), "2 of 3 completed") {
		t.Errorf("the log does not state 2 of 3 pods")
	}
}

// podOfIndex finds the name of the pod with completion index idx in a
// pod list.
func podOfIndex(list []byte, idx string) string {
	var l struct {
		Items []struct {
			Metadata struct {
				Name        string
				Annotations map[string]string
			}
		}
	}
	if err := json.Unmarshal(list, &l); err != nil {
		return ""
	}
	for _, p := range l.Items {
		if p.Metadata.Annotations["batch.kubernetes.io/job-completion-index"] == idx {
			return p.Metadata.Name
		}
	}
	return fmt.Sprintf("no-pod-%s", idx)
}
