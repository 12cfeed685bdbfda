package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLadderCommand runs `authbench ladder -f` on a scenario whose target
// is a proxy (adding 3 ms) in front of a backend, and checks the JSON on
// stdout and the run directory.
func TestLadderCommand(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer cli-token" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "echo response")
	}))
	defer backend.Close()
	client := &http.Client{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Millisecond)
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, backend.URL+r.URL.Path, nil)
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		res, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	}))
	defer proxy.Close()
	dir := t.TempDir()
	t.Setenv("LADDER_TEST_TOKEN", "cli-token")
	yaml := fmt.Sprintf(`name: cli
targets:
  - name: stack
    url: %[1]s/echo
    token: {env: LADDER_TEST_TOKEN}
    layers: [proxy, backend]
    rungs:
      - {layer: proxy, url: %[1]s/echo}
      - {layer: backend, url: %[2]s/echo}
`, proxy.URL, backend.URL)
	file := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"ladder", "-f", file, "-q", "100", "-z", "200ms", "--rounds", "2",
		"--probe", "200ms", "-c", "4", "--output", "json", "--out", filepath.Join(dir, "runs")}, streams{out: &out, err: &errs})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var doc struct {
		Layers []struct {
			Name    string             `json:"name"`
			AddedMs map[string]float64 `json:"added_ms"`
		} `json:"layers"`
		Rungs []struct {
			Layer string `json:"layer"`
		} `json:"rungs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not the ladder's JSON: %v\n%s", err, out.String())
	}
	if len(doc.Layers) != 2 || doc.Layers[0].Name != "proxy" || doc.Layers[0].AddedMs["p50"] < 2.5 {
		t.Errorf("layers %+v, want proxy (about 3 ms added) then backend", doc.Layers)
	}
	if strings.Contains(out.String()+errs.String(), "cli-token") {
		t.Error("the token was printed")
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*-ladder-stack", "*"))
	var names []string
	for _, r := range runs {
		names = append(names, filepath.Base(r))
	}
	for _, want := range []string{"run.json", "summary.md", "report.html", "timeline.json"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("run directory has %v, want %s", names, want)
		}
	}
	md, _ := filepath.Glob(filepath.Join(dir, "runs", "*-ladder-stack", "summary.md"))
	if len(md) == 1 {
		b, _ := os.ReadFile(md[0])
		if !strings.Contains(string(b), "#### stack Latency Breakdown") {
			t.Error("summary.md has no Latency Breakdown section")
		}
		if strings.Contains(string(b), "cli-token") {
			t.Error("summary.md leaks the token")
		}
	}
}

func TestLadderCommandErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("targets:\n  - name: a\n    url: http://127.0.0.1:1/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"ladder", "--output", "xml"}, "--output: want text or json"},
		{[]string{"ladder", "-f", file}, "no target has rungs"},
		{[]string{"ladder", "-f", file, "--target", "b"}, `no target "b"`},
		{[]string{"ladder", "--lab-dir", dir}, "no lab is running"},
		{[]string{"ladder", "--lab-dir", dir, "--stack", "4x"}, `unknown stack "4x"`},
		{[]string{"ladder", "-f", file, "-c", "0"}, "concurrency (-c): must be at least 1, got 0"},
		{[]string{"ladder", "-f", file, "-z", "-1s"}, "duration (-z): must be positive, got -1s"},
		{[]string{"ladder", "-f", file, "-q", "-5"}, "rate (-q): must be more than 0"},
		{[]string{"ladder", "-f", file, "--closed", "-q", "5"}, "or --closed, not both"},
		{[]string{"ladder", "-f", file, "-q", "Inf"}, "rate (-q): must be a finite number"},
		{[]string{"ladder", "-f", file, "-n", "5", "-z", "1s"}, "give -n or -z, not both"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run(context.Background(), tc.args, streams{out: &out, err: &errs}); code == ExitOK || !strings.Contains(errs.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want an error saying %q", code, errs.String(), tc.want)
			}
		})
	}
}
