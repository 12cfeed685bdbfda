package runner

import (
	"context"
	"fmt"
	"net/http"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Local executes load in this process with pkg/load's engine.
type Local struct {
	attacker *load.Attacker
	requests []load.Request
	targets  []plan.Target
}

// NewLocal returns an executor for this process. Prepare creates its HTTP
// client.
func NewLocal() *Local { return &Local{} }

// Prepare builds one request per target. Token sources are shared
// between targets with the same spec: one OIDC login, one command run.
func (l *Local) Prepare(ctx context.Context, client plan.Client, targets []plan.Target) error {
	path, err := load.IOPathFromEnv()
	if err != nil {
		return err
	}
	a, err := load.NewAttacker(client, load.WithIOPath(path))
	if err != nil {
		return fmt.Errorf("preparing http client: %w", err)
	}
	l.attacker, l.targets, l.requests = a, targets, nil
	tokens := map[*auth.Spec]auth.TokenSource{}
	for _, t := range targets {
		r, err := request(ctx, t, tokens)
		if err != nil {
			return fmt.Errorf("target %q: %w", t.Name, err)
		}
		l.requests = append(l.requests, r)
	}
	return nil
}

// Probe fingerprints target i.
func (l *Local) Probe(ctx context.Context, i int) results.TargetFingerprint {
	fp := l.attacker.Probe(ctx, l.requests[i])
	fp.Target, fp.URL = l.targets[i].Name, l.targets[i].URL
	return fp
}

// Execute runs one phase with the engine.
func (l *Local) Execute(ctx context.Context, ph Phase) (*Measured, error) {
	if ph.Target < 0 || ph.Target >= len(l.requests) {
		return nil, fmt.Errorf("no prepared target %d", ph.Target)
	}
	var opts []load.AttackOption
	if ph.HistogramLog != nil {
		opts = append(opts, load.WithHistogramLog(ph.HistogramLog))
	}
	if ph.Progress != nil {
		opts = append(opts, load.WithProgress(ph.Progress))
	}
	if ph.Intervals != nil {
		opts = append(opts, load.WithIntervals(ph.Intervals))
	}
	m := l.attacker.Attack(ctx, l.requests[ph.Target], ph.Spec, opts...)
	return &Measured{Result: m.Result(), Series: m.Series(), Histogram: m.Histogram(),
		Unsent: m.Unsent(), Partial: m.Partial(), LogErr: m.LogErr()}, nil
}

// Close closes the engine's connections.
func (l *Local) Close() error {
	if l.attacker != nil {
		l.attacker.Close()
	}
	return nil
}

// request builds one target's request, sharing token sources by spec.
func request(ctx context.Context, t plan.Target, tokens map[*auth.Spec]auth.TokenSource) (load.Request, error) {
	h := make(http.Header, len(t.Headers))
	for _, kv := range t.Headers {
		h.Add(kv.Name, kv.Value)
	}
	r := load.Request{Method: t.Method, URL: t.URL, Host: t.Host, Header: h, Body: t.Body}
	if r.Method == "" {
		r.Method = plan.DefaultMethod
	}
	if t.Token == nil || t.Token.Kind() == "none" {
		return r, nil
	}
	if ts, ok := tokens[t.Token]; ok {
		r.Token = ts
		return r, nil
	}
	ts, err := auth.New(ctx, t.Token)
	if err != nil {
		return r, fmt.Errorf("getting token (%s): %w", t.Token.Kind(), err)
	}
	tokens[t.Token] = ts
	r.Token = ts
	return r, nil
}
