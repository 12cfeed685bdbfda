//go:build integration

package pods_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
	"github.com/authbench/authbench/pkg/store"
)

// oidcLifespan is Keycloak's access token lifetime for this test: the
// run lasts longer, so each pod must refresh its own token.
const oidcLifespan = 20 * time.Second

// oidcRefresh: the lab's 3x target with its OIDC source (alice's password
// grant at the lab's Keycloak), run from 3 pods for longer than a token
// lives, gets no 401; the grant's credentials reach the pods only in the
// Secret and are in no object, log or file.
func (e *env) oidcRefresh(t *testing.T) {
	testenv.NeedTools(t, toolcache.ToolPath, "`make lab` installs it",
		"keycloak", "java", "oauth2-proxy", "envoy", "kube-rbac-proxy", "etcd", "kube-apiserver")
	// A lasting dir keeps Keycloak's database from one test run to the
	// next (its schema takes a minute to create on 2 cores).
	dir := filepath.Join(toolcache.CacheDir(), "lab-pods-integration")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lb := lab.Open(dir, processes.Platform{})
	lb.Down(ctx, os.Stderr)
	t0 := time.Now()
	if _, err := lb.Up(ctx, lab.UpOptions{Out: testLog{t}, Supervisor: []string{e.bin, "lab", "serve", "--lab-dir", dir},
		Config: lab.Config{Stacks: []string{stacks.Stack3x}, AccessTokenLifespan: oidcLifespan}}); err != nil {
		t.Fatalf("lab up: %v", err)
	}
	t.Logf("process lab (Keycloak, 3x) up in %s", time.Since(t0).Round(time.Second))
	defer lb.Down(context.Background(), testLog{t})
	b, err := lb.Scenario(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse("lab-scenario.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	var keep []plan.Target
	for _, tg := range p.Targets {
		if tg.Name == stacks.Target3x && tg.Token != nil && tg.Token.OIDC != nil {
			keep = append(keep, tg)
		}
	}
	if len(keep) != 1 {
		t.Fatalf("the lab scenario has no %s target with an oidc token:\n%s", stacks.Target3x, b)
	}
	p.Name, p.Targets, p.Observe, p.Prometheus = "pods-oidc", keep, nil, nil
	p.Load = plan.Load{Rate: 30, Duration: plan.Duration(oidcLifespan + 15*time.Second), Concurrency: 6, Iterations: 1}
	log := &syncBuf{t: t}
	x := e.executor(t, log)
	o, err := e.run(t, p, x, log, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	r := o.Run.Results[0]
	if len(r.Status) != 1 || r.Status["200"] != r.Requests || r.Requests == 0 {
		t.Errorf("status %v errors %v over %d requests; want only 200", r.Status, r.Errors, r.Requests)
	}
	tl, err := store.ReadTimeline(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range tl.Series[0].Points {
		if pt.AuthErrors > 0 {
			t.Errorf("second %.0f: %d auth errors", pt.T, pt.AuthErrors)
		}
	}
	if last := tl.Series[0].Points[len(tl.Series[0].Points)-1]; last.T < (oidcLifespan + 5*time.Second).Seconds() {
		t.Errorf("the timeline ends at %.0f s, before a token could expire", last.T)
	}
	secrets := x.Secrets()
	if len(secrets) == 0 {
		t.Fatal("no OIDC credential went through the Secret")
	}
	for _, s := range secrets {
		searchFiles(t, o.Dir, s)
		searchFiles(t, e.c.Dir, s, "etcd", "pki")
		if strings.Contains(log.String(), s) {
			t.Errorf("an OIDC credential is in the run's log")
		}
	}
}
