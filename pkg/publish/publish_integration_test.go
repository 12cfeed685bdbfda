//go:build integration

package publish

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/store"
)

// TestPublishRealServers publishes runs to a real OpenSearch 2.18 and a
// real Elasticsearch 8.15 (started side by side), reads them back by
// target and date, publishes again without duplicates, and merges two
// documents' histograms exactly.
func TestPublishRealServers(t *testing.T) {
	servers := make([]*searchServer, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, srv := range []toolcache.SearchServer{toolcache.OpenSearch, toolcache.Elasticsearch} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = startSearch(t, srv)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	runs := t.TempDir()
	var dirs []string
	for i, ms := range []float64{10, 11, 30, 31} {
		dirs = append(dirs, fixtureRun(t, runs, "nightly", day0.Add(time.Duration(i)*24*time.Hour), ms, "api", "login"))
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) { checkServer(t, s, runs, dirs) })
	}
	t.Run("tls and credentials through nginx", func(t *testing.T) { checkFrontDoor(t, servers[0].url, dirs[0]) })
	for _, s := range servers {
		t.Run("end of run, "+s.name, func(t *testing.T) { EndOfRunCheck(t, s.url) })
	}
}

// EndOfRunCheck runs authbench runs that publish at their end to the
// server at url. end_of_run_integration_test.go sets it: it drives the
// runner, which imports this package, so it lives in publish_test and
// shares these servers rather than starting its own.
var EndOfRunCheck func(t *testing.T, url string)

// checkFrontDoor publishes through nginx requiring TLS and credentials:
// right ones pass, wrong ones are refused with a message that quotes
// no secret, and TLS is verified.
func checkFrontDoor(t *testing.T, upstream, runDir string) {
	f := startNginx(t, upstream)
	token, _ := os.ReadFile(f.tokenFile)
	password, _ := os.ReadFile(f.passwordFile)
	wrong := filepath.Join(t.TempDir(), "wrong")
	must(t, os.WriteFile(wrong, []byte("not-the-secret"), 0o600))
	tests := []struct {
		name    string
		cfg     Config
		env     string
		wantErr string
	}{
		{"basic auth, password file", Config{URL: f.basicURL, User: f.user, PasswordFile: f.passwordFile, CACert: f.caFile}, "", ""},
		{"basic auth, password from the environment", Config{URL: f.basicURL, User: f.user, CACert: f.caFile}, string(password[:len(password)-1]), ""},
		{"bearer token from a file", Config{URL: f.bearerURL, Token: &auth.Spec{File: f.tokenFile}, CACert: f.caFile}, "", ""},
		{"wrong password", Config{URL: f.basicURL, User: f.user, PasswordFile: wrong, CACert: f.caFile}, "", "Unauthorized"},
		{"no credentials", Config{URL: f.basicURL, CACert: f.caFile}, "", "Unauthorized"},
		{"wrong token", Config{URL: f.bearerURL, Token: &auth.Spec{File: wrong}, CACert: f.caFile}, "", "Unauthorized"},
		{"CA not trusted", Config{URL: f.basicURL, User: f.user, PasswordFile: f.passwordFile}, "", "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvPassword, tt.env)
			tt.cfg.Index = "authbench-tls"
			sum, err := Publish(context.Background(), tt.cfg, runDir)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if sum.Created+sum.Existing != 4 {
					t.Errorf("summary %+v, want 4 documents", sum)
				}
				pts, err := History(context.Background(), tt.cfg, store.HistoryQuery{Target: "api"})
				if err != nil || len(pts) != 1 {
					t.Errorf("history through nginx: %d rows, %v", len(pts), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
			}
			for _, secret := range []string{string(token[:len(token)-1]), string(password[:len(password)-1]), "not-the-secret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error quotes a secret: %v", err)
				}
			}
		})
	}
}

func checkServer(t *testing.T, s *searchServer, runs string, dirs []string) {
	ctx := context.Background()
	cfg := Config{URL: s.url, Index: "authbench-it"}
	first, err := Publish(ctx, cfg, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if !first.TemplateCreated || first.Created != 16 || first.Existing != 0 || first.Runs != 4 {
		t.Errorf("first publish: %+v, want template created and 16 new documents", first)
	}
	again, err := Publish(ctx, cfg, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if again.TemplateCreated || again.Created != 0 || again.Existing != 16 {
		t.Errorf("second publish: %+v, want 16 already there", again)
	}
	if n := countDocs(t, s.url, cfg.Index); n != 16 {
		t.Errorf("index holds %d documents after publishing twice, want 16", n)
	}
	checkMapping(t, s.url, cfg.Index)
	c, err := NewClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := c.Search(ctx, Query{Target: "api", Since: day0.Add(24 * time.Hour), Until: day0.Add(50 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 {
		t.Fatalf("search by target and date: %d documents, want 2 runs x 2 iterations", len(docs))
	}
	for _, d := range docs {
		if d.Target != "api" || d.RunStart.Before(day0.Add(24*time.Hour)) || d.RunStart.After(day0.Add(50*time.Hour)) {
			t.Errorf("document outside the query: %s %s %s", d.RunID, d.Target, d.RunStart)
		}
	}
	checkExactMerge(t, docs[0], docs[2], runs)
	checkHistoryMatchesLocal(t, cfg, runs)
}

// checkExactMerge merges two documents of different runs and compares
// with the .hlog files merged from disk.
func checkExactMerge(t *testing.T, a, b Document, runs string) {
	m, err := MergeHistograms([]Document{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := hdrhistogram.New(1, 60_000_000, 3)
	for _, d := range []Document{a, b} {
		m, _ := filepath.Glob(filepath.Join(runs, "*", store.HistogramFileName(d.Target, d.Iteration)))
		for _, f := range m {
			run, err := store.Read(filepath.Dir(f))
			if err != nil || run.ID != d.RunID {
				continue
			}
			h, err := store.ReadHistogramLog(f)
			if err != nil {
				t.Fatal(err)
			}
			want.Merge(h)
		}
	}
	if want.TotalCount() == 0 || !m.H.Equals(want) {
		t.Errorf("merged from the index: %d values p99 %d; from the .hlog files: %d values p99 %d",
			m.H.TotalCount(), m.H.ValueAtQuantile(99), want.TotalCount(), want.ValueAtQuantile(99))
	}
}

func checkHistoryMatchesLocal(t *testing.T, cfg Config, runs string) {
	remote, err := History(context.Background(), cfg, store.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	local, err := LocalHistory(runs, store.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(remote) != len(local) {
		t.Fatalf("history: %d rows from the index, %d local", len(remote), len(local))
	}
	for i := range remote {
		r, l := remote[i].Row, local[i].Row
		if r.RunID != l.RunID || r.Target != l.Target || r.Requests != l.Requests || *r.P95Merged != *l.P95Merged || r.Throughput != l.Throughput {
			t.Errorf("row %d: index %+v, local %+v", i, r, l)
		}
	}
}

func countDocs(t *testing.T, url, index string) int {
	resp, err := http.Get(url + "/" + index + "/_count")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Count int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Count
}

// checkMapping verifies the template's types reached the index.
func checkMapping(t *testing.T, url, index string) {
	resp, err := http.Get(url + "/" + index + "/_mapping")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]struct {
		Mappings struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	p := m[index].Mappings.Properties
	for field, want := range map[string]string{"run_start": "date", "target": "keyword", "run_id": "keyword", "histogram": "binary", "concurrency": "integer"} {
		if p[field].Type != want {
			t.Errorf("field %s mapped as %q, want %q", field, p[field].Type, want)
		}
	}
}
