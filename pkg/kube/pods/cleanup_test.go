package pods

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

// loggingCluster is an API server stand-in on 127.0.0.1 behind a
// kubeconfig: it records every request and answers a POST with refuse's
// status for the kinds in it (201 otherwise), anything else with an
// empty list.
func loggingCluster(t *testing.T, refuse map[string]int) (kubeconfig string, seen func() []string) {
	t.Helper()
	var mu sync.Mutex
	var log []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		if r.Method == http.MethodPost {
			plural := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
			if code, ok := refuse[plural]; ok {
				w.WriteHeader(code)
				fmt.Fprintf(w, `{"message":"%s refused"}`, plural)
				return
			}
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"metadata":{"uid":"u-1"}}`))
			return
		}
		w.Write([]byte(`{"items":[]}`))
	}))
	t.Cleanup(srv.Close)
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
`, srv.URL)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(log) }
}

// TestCloseDeletesOnlyWhatTheRunCreated: a refused Job leaves nothing to
// delete, so no DELETE is sent; once something was created, every DELETE
// carries the run's label selector.
func TestCloseDeletesOnlyWhatTheRunCreated(t *testing.T) {
	for _, tc := range []struct {
		name        string
		refuse      map[string]int
		wantDeletes bool
	}{
		{"job refused", map[string]int{"jobs": http.StatusForbidden}, false},
		{"job invalid", map[string]int{"jobs": http.StatusUnprocessableEntity}, false},
		{"dependent refused", map[string]int{"serviceaccounts": http.StatusForbidden}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc, seen := loggingCluster(t, tc.refuse)
			e, err := New(Options{Execution: plan.Execution{Pods: 1, Image: "authbench:test", Kubeconfig: kc, Namespace: plan.MustNamespace("load")}})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Prepare(context.Background(), plan.Client{}, []plan.Target{{Name: "t", URL: "http://127.0.0.1:1/"}}); err == nil {
				t.Fatal("Prepare succeeded against a refusing server")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			deletes := 0
			for _, r := range seen() {
				if !strings.HasPrefix(r, "DELETE ") {
					continue
				}
				deletes++
				u, _ := url.Parse(strings.TrimPrefix(r, "DELETE "))
				if got := u.Query().Get("labelSelector"); got != RunLabel+"="+e.ID() || !strings.HasPrefix(u.Path, "/api") ||
					!strings.Contains(u.Path, "/namespaces/load/") {
					t.Errorf("%s: not a delete of this run's objects in namespace load", r)
				}
			}
			if (deletes > 0) != tc.wantDeletes {
				t.Errorf("%d DELETEs, want some: %v; requests %v", deletes, tc.wantDeletes, seen())
			}
		})
	}
}

// TestDeleteSelectedNeedsASelector: a collection DELETE without a label
// selector (every object of the kind) is refused before it is sent.
func TestDeleteSelectedNeedsASelector(t *testing.T) {
	kc, seen := loggingCluster(t, nil)
	e, err := New(Options{Execution: plan.Execution{Pods: 1, Image: "authbench:test", Kubeconfig: kc}})
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []url.Values{nil, {}, {"labelSelector": {""}}, {"labelSelector": {RunLabel + "="}}} {
		err := deleteSelected(context.Background(), e.api, "Secret", collection("Secret", e.o.Namespace), sel)
		if !errors.Is(err, errNoSelector) {
			t.Errorf("selector %v: got %v, want a refusal", sel, err)
		}
	}
	if got := seen(); len(got) != 0 {
		t.Errorf("requests sent: %v", got)
	}
}
