package pods

import (
	"context"
	"encoding/json"
	"github.com/authbench/authbench/internal/kubeapi"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// beatingAPI serves the run's ConfigMap: no phase at first, then phase 1,
// with a heartbeat that moves on every read until stopped.
type beatingAPI struct {
	mu      sync.Mutex
	reads   int
	beat    time.Time
	stopped bool
	paths   map[string]bool
}

func (s *beatingAPI) Do(_ context.Context, method string, path kubeapi.URLPath, _ string, _ io.Reader) (int, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths[method+" "+path.String()] = true
	s.reads++
	if !s.stopped {
		s.beat = s.beat.Add(10 * time.Second)
	}
	data := map[string]string{keyHeartbeat: s.beat.Format(time.RFC3339Nano)}
	if s.reads > 1 {
		ph, _ := json.Marshal(Phase{Seq: 1, Kind: PhaseLoad})
		data[keyPhase] = string(ph)
	}
	b, _ := json.Marshal(map[string]any{"data": data})
	return http.StatusOK, b, nil
}

func (s *beatingAPI) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

// TestAgentStaleHeartbeatStopsRunningPhase: while the heartbeat moves, a
// running phase goes on; once it stands still for staleAfter, the agent
// cancels the phase and exits, instead of loading the target until the
// phase's duration ends.
func TestAgentStaleHeartbeatStopsRunningPhase(t *testing.T) {
	api := &beatingAPI{beat: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), paths: map[string]bool{}}
	started, cancelled := make(chan struct{}), make(chan struct{})
	a := &agent{api: api, enc: json.NewEncoder(io.Discard), staleAfter: 200 * time.Millisecond,
		cfg: Config{Namespace: plan.MustNamespace("ns"), ConfigMap: plan.MustObjectName("authbench-1a2b")}}
	a.runPhase = func(ctx context.Context, ph Phase) {
		close(started)
		<-ctx.Done()
		close(cancelled)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.loop(ctx) }()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("phase 1 never started")
	}
	// Several busy polls, each seeing a new beat: the phase must go on.
	time.Sleep(2*busyPollEvery + busyPollEvery/2)
	select {
	case <-cancelled:
		t.Fatal("the phase was cancelled while the coordinator was beating")
	default:
	}
	api.stop()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "heartbeat") {
			t.Errorf("loop returned %v, want a stale heartbeat error", err)
		}
	case <-ctx.Done():
		t.Fatal("the agent did not exit on a stale heartbeat while a phase ran")
	}
	select {
	case <-cancelled:
	default:
		t.Error("the agent exited without cancelling its running phase")
	}
	if want := "GET /api/v1/namespaces/ns/configmaps/authbench-1a2b"; !api.paths[want] || len(api.paths) != 1 {
		t.Errorf("requests %v, want only %s", api.paths, want)
	}
}
