package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestConcurrentAttacksKeepTheirSchedule runs more staged open attacks at
// once than there are Ps, as the pod agent's shares and the tests do, on
// each path: a loop that waited without handing its P back would starve
// the others (and the server), and their requests would be left unsent.
func TestConcurrentAttacksKeepTheirSchedule(t *testing.T) {
	ss, err := plan.ParseStages("300ms:100,300ms:100-300")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	for _, path := range paths {
		t.Run(string(path), func(t *testing.T) {
			a := attacker(t, plan.Client{Timeout: plan.Duration(5 * time.Second)}, WithIOPath(path))
			var wg sync.WaitGroup
			for slot := range 3 {
				wg.Go(func() {
					spec := Spec{Model: plan.Open, Stages: ss, Duration: ss.Total().D(), Concurrency: 2, Stride: 3, Slot: slot}
					m := a.Attack(context.Background(), Request{URL: srv.URL}, spec)
					r := m.Result()
					for i, st := range r.Stages {
						if st.Requests != st.Scheduled || st.Status["200"] != st.Scheduled {
							t.Errorf("slot %d stage %d: scheduled %d, requests %d, 200s %d", slot, i+1, st.Scheduled, st.Requests, st.Status["200"])
						}
					}
					if m.Unsent() != 0 || m.IOPath() != path {
						t.Errorf("slot %d: %d unsent on %q, want 0 on %q", slot, m.Unsent(), m.IOPath(), path)
					}
				})
			}
			wg.Wait()
		})
	}
}
