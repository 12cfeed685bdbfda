//go:build integration

package kube_test

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// faultDelay is the apiserver link's delay the fault check sets.
const faultDelay = 200 * time.Millisecond

// checkFaultAPIServer: `lab fault apiserver --delay 200ms` slows 3x-oauth's
// ext_authz service (the kube-auth-proxy stand-in: one TokenReview per
// request, no cache, over the pod's apiserver link) by about the delay;
// `lab status` lists the fault; --clear restores the request's time; both
// changes are in the fault log.
func checkFaultAPIServer(t *testing.T, hc *http.Client, dir string, s *lab.State) {
	u := component(t, s, stacks.KubeAuthProxyOAuth).URL
	alice := secret(t, filepath.Join(dir, "tokens", "alice"))
	before := medianGet(t, hc, u, alice)
	authbench(t, time.Minute, "lab", "fault", results.LinkAPIServer, "--delay", faultDelay.String(), "--lab-dir", dir)
	cleared := false
	defer func() {
		if !cleared { // the rest of TestKubeLab runs on this lab
			exec.Command(binary, "lab", "fault", results.LinkAPIServer, "--clear", "--lab-dir", dir).Run()
		}
	}()
	st := authbench(t, time.Minute, "lab", "status", "--lab-dir", dir)
	if !strings.Contains(st, "delay "+faultDelay.String()) {
		t.Errorf("lab status does not list the apiserver link's delay:\n%s", st)
	}
	during := medianGet(t, hc, u, alice)
	authbench(t, time.Minute, "lab", "fault", results.LinkAPIServer, "--clear", "--lab-dir", dir)
	cleared = true
	after := medianGet(t, hc, u, alice)
	t.Logf("%s with alice's token, median of %d: %s before, %s with the apiserver link delayed %s, %s after --clear",
		stacks.KubeAuthProxyOAuth, gets, before, during, faultDelay, after)
	// One TokenReview per request, one round trip on a kept-alive
	// connection: the delay once, give or take scheduling on a busy host.
	if added := during - before; added < faultDelay*9/10 || added > 2*faultDelay {
		t.Errorf("the delay added %s to the request, want about %s", added, faultDelay)
	}
	if after > before+faultDelay/2 {
		t.Errorf("after --clear the request takes %s, want back near %s", after, before)
	}
	events, err := lab.ReadFaults(dir)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, ev := range events {
		if ev.Link == results.LinkAPIServer {
			actions = append(actions, ev.Action)
		}
	}
	if !slices.Equal(actions, []string{results.FaultSet, results.FaultClear}) {
		t.Errorf("fault log's apiserver events %v, want set then clear", actions)
	}
}

// gets is how many requests medianGet times.
const gets = 7

// medianGet is the median time of GET u with the token, each wanted 200.
func medianGet(t *testing.T, hc *http.Client, u, token string) time.Duration {
	t.Helper()
	var ds []time.Duration
	for range gets {
		start := time.Now()
		if code := status(t, hc, u, token); code != http.StatusOK {
			t.Fatalf("GET %s: status %d, want 200", u, code)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
