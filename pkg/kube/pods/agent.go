package pods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/redact"
)

// Agent timings.
const (
	pollEvery     = 100 * time.Millisecond
	busyPollEvery = time.Second
	// staleAfter: an agent whose coordinator's heartbeat has not changed
	// for this long stops its phase and exits, so a killed coordinator
	// leaves no pod running and none loading the target.
	staleAfter = 2 * time.Minute
)

// agent is one pod's load generator.
type agent struct {
	index    int
	cfg      Config
	api      APIClient
	attacker *load.Attacker
	requests []load.Request
	mu       sync.Mutex
	enc      *json.Encoder
	// runPhase runs one phase until done or ctx ends; a.run, replaced in
	// tests.
	runPhase func(ctx context.Context, ph Phase)
	// staleAfter is the package's staleAfter, shortened in tests.
	staleAfter time.Duration
}

// RunAgent is `authbench agent`: it prepares the targets described in
// configPath, says ready, then runs each phase the coordinator publishes
// until told to exit. index is the pod's completion index.
func RunAgent(ctx context.Context, configPath string, index int, out io.Writer) error {
	a := &agent{index: index, enc: json.NewEncoder(out), staleAfter: staleAfter}
	a.runPhase = a.run
	if err := a.prepare(ctx, configPath); err != nil {
		a.emit(Line{Kind: KindError, Message: redact.Text(err.Error())})
		return err
	}
	defer a.attacker.Close()
	a.emit(Line{Kind: KindReady})
	return a.loop(ctx)
}

func (a *agent) prepare(ctx context.Context, path string) error {
	b, err := boundedio.ReadFile(path, boundedio.Config)
	if err != nil {
		return fmt.Errorf("reading agent config: %w", err)
	}
	if err := json.Unmarshal(b, &a.cfg); err != nil {
		return fmt.Errorf("reading agent config %s: %w", path, err)
	}
	if a.cfg.Namespace.IsZero() || a.cfg.ConfigMap.IsZero() {
		return fmt.Errorf("agent config %s: no namespace or ConfigMap to read phases from", path)
	}
	if a.api, err = kubeapi.InCluster(a.cfg.Server); err != nil {
		return err
	}
	io, err := load.IOPathFromEnv()
	if err != nil {
		return err
	}
	if a.attacker, err = load.NewAttacker(a.cfg.Client, load.WithIOPath(io)); err != nil {
		return fmt.Errorf("preparing http client: %w", err)
	}
	for _, t := range a.cfg.Targets {
		r := load.Request{Method: t.Method, URL: t.URL, Host: t.Host, Header: http.Header{}, Body: t.Body}
		if r.Method == "" {
			r.Method = http.MethodGet
		}
		for _, h := range t.Header {
			r.Header.Add(h[0], h[1])
		}
		if t.Token != nil {
			if r.Token, err = auth.New(ctx, t.Token); err != nil {
				return fmt.Errorf("target %q: getting token (%s): %w", t.Name, t.Token.Kind(), err)
			}
		}
		a.requests = append(a.requests, r)
	}
	return nil
}

// emit writes one line; lines from the interval stream and the phase
// interleave, never mix.
func (a *agent) emit(l Line) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.enc.Encode(l)
}

// loop polls the ConfigMap and runs each new phase once. Phases that
// were already published when the agent started belong to a pod it
// replaces and are skipped. A stale heartbeat ends the agent, and the
// phase it runs with it: a killed coordinator must not leave pods loading
// the target until the phase's duration ends.
func (a *agent) loop(ctx context.Context) error {
	cur := &phaseRun{seq: -1, cancel: func() {}, done: closed()}
	defer func() { cur.cancel(); <-cur.done }()
	var missing time.Time
	var hb heartbeat
	for {
		ph, beat, err := a.read(ctx)
		switch {
		case errors.Is(err, errGone):
			if missing.IsZero() {
				missing = time.Now()
			} else if time.Since(missing) > 30*time.Second {
				return errors.New("the run's ConfigMap is gone")
			}
		case err == nil:
			missing = time.Time{}
			if cur.seq < 0 {
				cur.seq = ph.Seq
			}
			if ph.Done {
				return nil
			}
			if hb.stale(beat, a.staleAfter) {
				return fmt.Errorf("the coordinator's heartbeat has not changed for %s: stopping and exiting", a.staleAfter)
			}
			if ph.Abort && ph.Seq == cur.seq {
				cur.cancel()
			}
			if ph.Seq > cur.seq && !ph.Abort && isDone(cur.done) {
				cur = a.start(ctx, ph)
			}
		}
		// While a phase runs only an abort can come: a slower poll keeps
		// the API server's load (on the generators' node) out of the way.
		every := pollEvery
		if !isDone(cur.done) {
			every = busyPollEvery
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

// heartbeat follows the coordinator's beat. Staleness is measured by this
// pod's clock, from when the beat last changed, so that clock skew between
// the coordinator's host and the pod's node cannot stop a live run.
type heartbeat struct {
	last    time.Time // the beat last read
	changed time.Time // when it last changed, by this pod's clock
}

// stale records beat and reports whether it has stood still for longer
// than d. A coordinator that never beat is not judged.
func (h *heartbeat) stale(beat time.Time, d time.Duration) bool {
	now := time.Now()
	if h.changed.IsZero() || !beat.Equal(h.last) {
		h.last, h.changed = beat, now
		return false
	}
	return !beat.IsZero() && now.Sub(h.changed) > d
}

// phaseRun is the phase an agent is running.
type phaseRun struct {
	seq    int
	cancel context.CancelFunc
	done   chan struct{}
}

func (a *agent) start(ctx context.Context, ph Phase) *phaseRun {
	pctx, cancel := context.WithCancel(ctx)
	r := &phaseRun{seq: ph.Seq, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); a.runPhase(pctx, ph) }()
	return r
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

var errGone = errors.New("configmap not found")

// read GETs the run's ConfigMap.
func (a *agent) read(ctx context.Context) (Phase, time.Time, error) {
	var ph Phase
	code, b, err := a.api.Do(ctx, http.MethodGet, objectPath("ConfigMap", a.cfg.Namespace, a.cfg.ConfigMap), "", nil)
	switch {
	case err != nil:
		return ph, time.Time{}, err
	case code == http.StatusNotFound:
		return ph, time.Time{}, errGone
	case code != http.StatusOK:
		return ph, time.Time{}, fmt.Errorf("reading the run's ConfigMap: %d", code)
	}
	var cm struct{ Data map[string]string }
	if err := json.Unmarshal(b, &cm); err != nil {
		return ph, time.Time{}, err
	}
	beat, _ := time.Parse(time.RFC3339Nano, cm.Data[keyHeartbeat])
	if cm.Data[keyPhase] == "" {
		return Phase{}, beat, nil
	}
	err = json.Unmarshal([]byte(cm.Data[keyPhase]), &ph)
	return ph, beat, err
}
