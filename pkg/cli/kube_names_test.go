package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// apiLog is a Kubernetes API stand-in on 127.0.0.1 that logs every
// request; it refuses every Job (so a run fails right after its first
// create) and answers anything else with an empty list.
type apiLog struct {
	mu   sync.Mutex
	reqs []string
	kc   string // a kubeconfig that points at it
}

func newAPILog(t *testing.T) *apiLog {
	t.Helper()
	a := &apiLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.reqs = append(a.reqs, r.Method+" "+r.URL.RequestURI())
		a.mu.Unlock()
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/jobs") {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"message":"jobs are forbidden"}`))
			return
		}
		w.Write([]byte(`{"items":[]}`))
	}))
	t.Cleanup(srv.Close)
	a.kc = writeFile(t, t.TempDir(), "kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
`, srv.URL))
	return a
}

func (a *apiLog) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.reqs)
}

// TestKubeNamesRefusedBeforeAnyRequest: a namespace that would change
// the API path (a query, a fragment, another collection) is refused with
// the flag or file:line that gave it, and nothing reaches the cluster.
func TestKubeNamesRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	const target = "http://127.0.0.1:1/"
	api := newAPILog(t)
	scenario := writeFile(t, t.TempDir(), "pods.yaml", fmt.Sprintf(`name: pods
targets:
  - url: %s
load: {requests: 2, concurrency: 1}
execution:
  pods: 1
  image: x/authbench:1
  kubeconfig: %s
  namespace: "default/secrets#"
`, target, api.kc))
	run := []string{"run", "--out", t.TempDir(), "--pods", "1", "-n", "2", "-c", "1", "--image", "x/authbench:1", "--kubeconfig", api.kc}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run query", slices.Concat(run, []string{"--namespace", "victim?", target}), `--namespace "victim?": not a valid Kubernetes namespace`},
		{"run other collection", slices.Concat(run, []string{"--namespace", "default/secrets#", target}),
			`--namespace "default/secrets#": not a valid Kubernetes namespace`},
		{"scenario", []string{"run", "--out", t.TempDir(), "-f", scenario},
			scenario + `:9: execution.namespace: "default/secrets#": not a valid Kubernetes namespace`},
		{"kube delete", []string{"kube", "delete", "--stack", "2x", "-n", "victim?", "--kubeconfig", api.kc},
			`--namespace "victim?": not a valid Kubernetes namespace`},
		{"kube deploy", []string{"kube", "deploy", "--stack", "2x", "-n", "default/secrets#", "--kubeconfig", api.kc},
			`--namespace "default/secrets#": not a valid Kubernetes namespace`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitError, tc.want)
			}
		})
	}
	if got := api.seen(); len(got) != 0 {
		t.Errorf("the cluster was sent %v", got)
	}
}

// TestRunPodsRefusedJobDeletesNothing: a run whose Job the cluster
// refuses created nothing, so it deletes nothing; the one request sent
// is the refused create.
func TestRunPodsRefusedJobDeletesNothing(t *testing.T) {
	t.Parallel()
	api := newAPILog(t)
	r := runCLI(t, "run", "--out", t.TempDir(), "--pods", "1", "-n", "2", "-c", "1", "--image", "x/authbench:1",
		"--kubeconfig", api.kc, "--namespace", "load", "http://127.0.0.1:1/")
	if r.code != ExitError || !strings.Contains(r.stderr, "jobs are forbidden") {
		t.Errorf("exit %d, stderr %q; want %d and the refusal", r.code, r.stderr, ExitError)
	}
	if got := api.seen(); len(got) != 1 || !strings.HasPrefix(got[0], "POST /apis/batch/v1/namespaces/load/jobs") {
		t.Errorf("requests %v, want the one refused POST of the Job", got)
	}
}
