package runner

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// target is a plan target made ready to send.
type target struct {
	plan    plan.Target
	request load.Request
}

// prepareTargets builds requests and token sources. A token source that
// cannot start (an unset variable, a failing command) is a setup error:
// measuring a stack with no token would only measure its 401 path.
func prepareTargets(ctx context.Context, p *plan.Plan) ([]target, error) {
	out := make([]target, 0, len(p.Targets))
	for _, pt := range p.Targets {
		r, err := request(ctx, pt)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", pt.Name, err)
		}
		out = append(out, target{plan: pt, request: r})
	}
	return out, nil
}

func request(ctx context.Context, t plan.Target) (load.Request, error) {
	h := make(http.Header, len(t.Headers))
	for _, kv := range t.Headers {
		h.Add(kv.Name, kv.Value)
	}
	r := load.Request{Method: t.Method, URL: t.URL, Host: t.Host, Header: h, Body: t.Body}
	if t.Token != nil && t.Token.Kind() != "none" {
		ts, err := auth.New(ctx, t.Token)
		if err != nil {
			return r, fmt.Errorf("getting token (%s): %w", t.Token.Kind(), err)
		}
		r.Token = ts
	}
	return r, nil
}

// probe sends one request to fingerprint the backend. Its failure is data:
// the run goes on and the fingerprint records the error.
func probe(ctx context.Context, a *load.Attacker, t target) results.TargetFingerprint {
	fp := a.Probe(ctx, t.request)
	fp.Target = t.plan.Name
	fp.URL = t.plan.URL
	return fp
}

func environment() results.Environment {
	host, _ := os.Hostname()
	return results.Environment{
		Host:      host,
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPUs:      runtime.NumCPU(),
		GoVersion: runtime.Version(),
	}
}

func redactArgs(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return auth.RedactArgs(args)
}
