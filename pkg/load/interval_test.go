package load

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestIntervalsAddUp checks that the seconds handed to a watcher add up to
// the attack's result: requests, errors by class and latency counts.
func TestIntervalsAddUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"open", Spec{Model: plan.Open, Rate: 300, Duration: 1500 * time.Millisecond, Concurrency: 8}},
		{"closed", Spec{Model: plan.Closed, Requests: 300, Concurrency: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch n.Add(1) % 10 {
				case 0:
					w.WriteHeader(http.StatusUnauthorized)
				case 5:
					w.WriteHeader(http.StatusBadGateway)
				}
			}))
			t.Cleanup(s.Close)
			var got []Interval
			var counted, uncorrected int64
			watch := func(iv Interval) {
				counted += iv.Corrected.TotalCount()
				if iv.Uncorrected != nil {
					uncorrected += iv.Uncorrected.TotalCount()
				}
				iv.Corrected, iv.Uncorrected = nil, nil // not ours to keep
				got = append(got, iv)
			}
			_, r := runAttack(t, attacker(t, plan.Client{}), Request{URL: s.URL}, tc.spec, WithIntervals(watch))
			var reqs, errs int64
			classes := map[string]int64{}
			for _, iv := range got {
				reqs, errs = reqs+iv.Requests, errs+iv.Errors
				for k, v := range iv.Classes {
					classes[k] += v
				}
				if !iv.End.After(iv.Start) {
					t.Errorf("interval %v..%v is empty", iv.Start, iv.End)
				}
			}
			if reqs != r.Requests || counted != r.Requests || errs != r.Requests-r.Successes {
				t.Errorf("intervals: %d requests (%d in histograms), %d errors; result: %d requests, %d successes", reqs, counted, errs, r.Requests, r.Successes)
			}
			if classes["HTTP 401/403"] != r.Status["401"] || classes["HTTP 5xx"] != r.Status["502"] || len(classes) != 2 {
				t.Errorf("classes %v, statuses %v", classes, r.Status)
			}
			if open := tc.spec.Model == plan.Open; open != (uncorrected == r.Requests) {
				t.Errorf("open %v: %d uncorrected latencies of %d requests", open, uncorrected, r.Requests)
			}
		})
	}
}

func TestFailIndex(t *testing.T) {
	for _, tc := range []struct {
		class  string
		status int
		want   string
	}{
		{ClassRefused, 0, ClassRefused},
		{ClassAuthToken, 0, ClassAuthToken},
		{"unheard-of", 0, ClassOther},
		{"", 401, "HTTP 401/403"},
		{"", 403, "HTTP 401/403"},
		{"", 404, "HTTP 4xx"},
		{"", 503, "HTTP 5xx"},
	} {
		if got := failNames[failIndex(tc.class, tc.status)]; got != tc.want {
			t.Errorf("failIndex(%q, %d) is %s, want %s", tc.class, tc.status, got, tc.want)
		}
	}
	if failIndex("", 200) != -1 {
		t.Error("a success has a failure class")
	}
}
