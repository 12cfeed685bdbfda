package pods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/redact"
)

// Agent timings.
const (
	pollEvery     = 100 * time.Millisecond
	busyPollEvery = time.Second
	// staleAfter: an idle agent whose coordinator has not beaten for this
	// long exits, so a killed coordinator leaves no pod running.
	staleAfter = 2 * time.Minute
)

// agent is one pod's load generator.
type agent struct {
	index    int
	cfg      Config
	api      *deploy.Client
	attacker *load.Attacker
	requests []load.Request
	mu       sync.Mutex
	enc      *json.Encoder
}

// RunAgent is `authbench agent`: it prepares the targets described in
// configPath, says ready, then runs each phase the coordinator publishes
// until told to exit. index is the pod's completion index.
func RunAgent(ctx context.Context, configPath string, index int, out io.Writer) error {
	a := &agent{index: index, enc: json.NewEncoder(out)}
	if err := a.prepare(ctx, configPath); err != nil {
		a.emit(Line{Kind: KindError, Message: redact.Text(err.Error())})
		return err
	}
	defer a.attacker.Close()
	a.emit(Line{Kind: KindReady})
	return a.loop(ctx)
}

func (a *agent) prepare(ctx context.Context, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading agent config: %w", err)
	}
	if err := json.Unmarshal(b, &a.cfg); err != nil {
		return fmt.Errorf("reading agent config %s: %w", path, err)
	}
	if a.api, err = deploy.InCluster(a.cfg.Server); err != nil {
		return err
	}
	if a.attacker, err = load.NewAttacker(a.cfg.Client); err != nil {
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
// replaces and are skipped.
func (a *agent) loop(ctx context.Context) error {
	cur := &phaseRun{seq: -1, cancel: func() {}, done: closed()}
	defer func() { cur.cancel(); <-cur.done }()
	var missing time.Time
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
			if ph.Abort && ph.Seq == cur.seq {
				cur.cancel()
			}
			if ph.Seq > cur.seq && !ph.Abort && isDone(cur.done) {
				cur = a.start(ctx, ph)
			}
			if isDone(cur.done) && !beat.IsZero() && time.Since(beat) > staleAfter {
				return errors.New("the coordinator stopped beating; exiting")
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

// phaseRun is the phase an agent is running.
type phaseRun struct {
	seq    int
	cancel context.CancelFunc
	done   chan struct{}
}

func (a *agent) start(ctx context.Context, ph Phase) *phaseRun {
	pctx, cancel := context.WithCancel(ctx)
	r := &phaseRun{seq: ph.Seq, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); a.run(pctx, ph) }()
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
	code, b, err := a.api.Do(ctx, http.MethodGet, kubeapi.Path("api", "v1", "namespaces", a.cfg.Namespace, "configmaps", a.cfg.ConfigMap), "", nil)
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
