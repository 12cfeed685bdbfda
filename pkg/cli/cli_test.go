package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// setups run once before the package's tests, each returning its
// teardown; the integration tests register building the binary here.
var setups []func() (teardown func(), err error)

// TestMain raises the default -parallel: every run spends two seconds
// sampling the idle baseline before its load, so the tests wait far more
// than they compute, and GOMAXPROCS (the default) serialises them on a
// small machine. An explicit -parallel is kept.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", "16")
	}
	var teardowns []func()
	code := func() int {
		for _, setup := range setups {
			td, err := setup()
			if err != nil {
				fmt.Fprintln(os.Stderr, "setup:", err)
				return 1
			}
			teardowns = append(teardowns, td)
		}
		return m.Run()
	}()
	for _, td := range teardowns {
		td()
	}
	os.Exit(code)
}

// cliResult is what one in-process invocation of authbench produced.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs authbench in-process with buffers for stdout and stderr, as
// a pipe would see them: not a terminal. A run is bounded so that a hung
// engine fails the test instead of the whole package timing out.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var out, errs bytes.Buffer
	code := run(ctx, args, streams{out: &out, err: &errs})
	r := cliResult{code: code, stdout: out.String(), stderr: errs.String()}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("authbench %s panicked:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// mustRun is runCLI that requires the given exit code.
func mustRun(t *testing.T, code int, args ...string) cliResult {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != code {
		t.Fatalf("authbench %s: exit %d, want %d\nstderr:\n%s\nstdout:\n%s",
			strings.Join(args, " "), r.code, code, r.stderr, r.stdout)
	}
	return r
}

// counted is a loopback server that counts every request it receives.
type counted struct {
	*httptest.Server
	n atomic.Int64
}

// newCounted starts a server on 127.0.0.1:0 that counts requests and then
// hands them to h (nil: 200 "hello").
func newCounted(t *testing.T, h http.HandlerFunc) *counted {
	t.Helper()
	c := &counted{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.n.Add(1)
		if h == nil {
			_, _ = w.Write([]byte("hello\n"))
			return
		}
		h(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// runDir returns the one run directory under out.
func runDir(t *testing.T, out string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "*", results.RunFile))
	if len(dirs) != 1 {
		t.Fatalf("want exactly one run directory under %s, found run.json files %v", out, dirs)
	}
	return filepath.Dir(dirs[0])
}

// readRun decodes dir/run.json both as the typed schema and as a generic
// map (to check which keys are present).
func readRun(t *testing.T, dir string) (*results.Run, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	return &run, raw
}

// rawResult returns results[i] of a generic run.json.
func rawResult(t *testing.T, raw map[string]any, i int) map[string]any {
	t.Helper()
	rs, _ := raw["results"].([]any)
	if i >= len(rs) {
		t.Fatalf("run.json has %d results, want at least %d", len(rs), i+1)
	}
	m, _ := rs[i].(map[string]any)
	return m
}

// totalRequests sums requests over every result of a run.
func totalRequests(run *results.Run) int64 {
	var n int64
	for _, r := range run.Results {
		n += r.Requests
	}
	return n
}

// probes counts the fingerprinting requests the runner sent before the
// load (one per target that answered): the server sees them, run.json's
// request counts do not include them.
func probes(run *results.Run) int64 {
	var n int64
	for _, fp := range run.Environment.Targets {
		if fp.Status != 0 {
			n++
		}
	}
	return n
}

// noEscapes fails when output holds progress-bar control characters, which
// must only be written to a terminal.
func noEscapes(t *testing.T, name, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\r\x1b") {
		i := strings.IndexAny(s, "\r\x1b")
		t.Errorf("%s holds a carriage return or escape code (progress bar on a non-terminal) near %q", name, s[max(0, i-40):min(len(s), i+40)])
	}
}

// writeFile writes a test input file and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	number     = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	whitespace = regexp.MustCompile(`[ \t]+`)
)

// normalise makes output comparable across runs: every number becomes N
// (timings, counts, ports, dates all vary) and every run of spaces and tabs
// one space (tabwriter widths follow the numbers). Callers replace paths
// and ids before, since those hold digits too.
func normalise(s string) string {
	s = number.ReplaceAllString(s, "N")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(whitespace.ReplaceAllString(l, " "), " ")
	}
	return strings.Join(lines, "\n")
}
