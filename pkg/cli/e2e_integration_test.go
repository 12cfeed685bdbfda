//go:build integration

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/results"
)

// binary is the authbench command built once for the package's tests.
var binary string

func init() { setups = append(setups, buildBinary) }

// buildBinary builds cmd/authbench into a temporary directory.
func buildBinary() (func(), error) {
	dir, err := os.MkdirTemp("", "authbench-e2e-")
	if err != nil {
		return nil, err
	}
	binary = filepath.Join(dir, "authbench")
	cmd := exec.Command("go", "build", "-o", binary, "github.com/authbench/authbench/cmd/authbench")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building authbench: %v\n%s", err, out)
	}
	return func() { os.RemoveAll(dir) }, nil
}

// process is a running authbench binary with its output captured (pipes,
// so not a terminal).
type process struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func start(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary, args...), done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait returns the exit code, failing the test if it takes longer than d.
func (p *process) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("authbench still running after %s\nstderr:\n%s", d, p.stderr.String())
		return -1
	}
}

// TestInterruptWritesPartialRun sends SIGINT to a real authbench process
// running `-z 30s`: it must exit 130 within a few seconds and leave a run
// directory marked partial, with what it measured and a summary.
func TestInterruptWritesPartialRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// after is how many requests the server must have seen before the
		// signal: 0 sends it during the idle baseline, before any load.
		after    int64
		requests bool
	}{
		{"during the load", 200, true},
		{"before the load starts", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newCounted(t, nil)
			out := t.TempDir()
			p := start(t, "run", "-z", "30s", "-c", "2", "--out", out, srv.URL)
			deadline := time.Now().Add(15 * time.Second)
			for srv.n.Load() < max(tc.after, 1) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if tc.after > 0 {
				time.Sleep(time.Second)
			}
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			signalled := time.Now()
			if code := p.wait(t, 10*time.Second); code != ExitInterrupted {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, ExitInterrupted, p.stderr.String())
			}
			if d := time.Since(signalled); d > 5*time.Second {
				t.Errorf("took %s to stop after SIGINT", d)
			}
			dir := runDir(t, out)
			run, _ := readRun(t, dir)
			if !run.Partial {
				t.Error(`run.json lacks "partial": true`)
			}
			if n := totalRequests(run); (n > 0) != tc.requests || n > srv.n.Load() {
				t.Errorf("run.json counts %d requests (server saw %d); want some: %v", n, srv.n.Load(), tc.requests)
			}
			md, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
			if err != nil {
				t.Errorf("no summary.md: %v", err)
			}
			for name, s := range map[string]string{"stdout": p.stdout.String(), "summary.md": string(md)} {
				if nanOrInf.MatchString(s) {
					t.Errorf("%s holds NaN or Inf:\n%s", name, s)
				}
			}
			if !strings.Contains(p.stdout.String(), "partial run") || !strings.Contains(p.stderr.String(), "interrupted") {
				t.Errorf("the output does not say the run was interrupted:\nstdout:\n%s\nstderr:\n%s", p.stdout.String(), p.stderr.String())
			}
		})
	}
}

// TestBinaryRedactsCommandLine runs the real binary, whose os.Args (unlike
// an in-process run's) are recorded in run.json and summary.md, with
// secrets in --token and in headers. The command line must be recorded
// with them redacted, and no secret may be written or printed. Its stdout
// is a pipe, so there must be no progress bar either.
func TestBinaryRedactsCommandLine(t *testing.T) {
	t.Parallel()
	const token, bearer, cookie = "cmdTok-R5uN2wQ8zXk", "cmdHdr-J3mV9cT1pLs", "cmdCookie-E6yH4bA0fGd"
	srv := newCounted(t, nil)
	out := filepath.Join(t.TempDir(), "runs")
	p := start(t, "run", "-n", "20", "-c", "2", "--out", out, "--token", token,
		"-H", "X-Api-Key-Not-Secret: visible", "-H", "Cookie: sid="+cookie, srv.URL)
	if code := p.wait(t, 30*time.Second); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	p2 := start(t, "run", "-n", "20", "-c", "2", "--out", out, "--output", "json", "-H", "Authorization: Bearer "+bearer, srv.URL)
	if code := p2.wait(t, 30*time.Second); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, p2.stderr.String())
	}
	if !json.Valid(p2.stdout.Bytes()) {
		t.Errorf("--output json: stdout is not JSON:\n%s", p2.stdout.String())
	}
	printed := p.stdout.String() + p.stderr.String() + p2.stdout.String() + p2.stderr.String()
	noEscapes(t, "output", printed)
	for _, secret := range []string{token, bearer, cookie} {
		if strings.Contains(printed, secret) {
			t.Errorf("%s was printed", secret)
		}
		searchTree(t, out, secret)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*", results.RunFile))
	if len(dirs) != 2 {
		t.Fatalf("want 2 runs, got %v", dirs)
	}
	for _, f := range dirs {
		run, _ := readRun(t, filepath.Dir(f))
		cl := strings.Join(run.CommandLine, " ")
		if !strings.Contains(cl, "run -n 20") || !strings.Contains(cl, "redacted") {
			t.Errorf("recorded command line %q: want the real one, secrets redacted", cl)
		}
	}
}

// TestImportHeyThenCompareAndHistory imports real hey output, runs
// authbench against the same server, compares the two runs and lists
// them in the history.
func TestImportHeyThenCompareAndHistory(t *testing.T) {
	t.Parallel()
	hey := testenv.NeedTools(t, exec.LookPath, "apt-get install -y hey", "hey")[0]
	srv := newCounted(t, nil)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "runs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	heyOut, err := exec.CommandContext(ctx, hey, "-n", "300", "-c", "10", srv.URL+"/").Output()
	if err != nil {
		t.Fatalf("hey: %v", err)
	}
	heyFile := writeFile(t, tmp, "hey.txt", string(heyOut))
	if got := srv.n.Load(); got != 300 {
		t.Fatalf("hey sent %d requests, want 300", got)
	}

	mustRun(t, ExitOK, "import", "hey", heyFile, "--name", "hey-run", "--out", out)
	mustRun(t, ExitOK, "run", "-n", "300", "-c", "10", "--name", "ab-run", "--out", out, srv.URL+"/")
	heyDir := globOne(t, out, "*-hey-run")
	abDir := globOne(t, out, "*-ab-run")
	imported, _ := readRun(t, heyDir)
	if imported.Imported == nil || imported.Imported.Tool != "hey" || totalRequests(imported) != 300 {
		t.Errorf("imported run: %+v, %d requests; want hey, 300", imported.Imported, totalRequests(imported))
	}

	cmp := mustRun(t, ExitOK, "compare", heyDir, abDir)
	md := cmp.stdout
	if !strings.Contains(md, "## Executive Summary") {
		t.Errorf("comparison has no Executive Summary:\n%s", md)
	}
	diffs := section(md, "### Configuration Differences")
	if diffs == "" || !strings.Contains(diffs, "hey (imported)") {
		t.Errorf("Configuration Differences does not note the imported run:\n%s", diffs)
	}

	hist := mustRun(t, ExitOK, "history", "--out", out)
	for _, want := range []string{"hey-run", "ab-run", "hey (imported)"} {
		if !strings.Contains(hist.stdout, want) {
			t.Errorf("history does not list %q:\n%s", want, hist.stdout)
		}
	}
}

// globOne returns the one path under dir matching pattern.
func globOne(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) != 1 {
		t.Fatalf("want one %s under %s, got %v", pattern, dir, m)
	}
	return m[0]
}

// section returns a Markdown section from its heading to the next heading
// of the same or a higher level, or "" when there is none.
func section(md, heading string) string {
	i := strings.Index(md, heading+"\n")
	if i < 0 {
		return ""
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	end := i + len(heading) + 1
	for _, l := range strings.SplitAfter(md[end:], "\n") {
		if h := len(l) - len(strings.TrimLeft(l, "#")); h > 0 && h <= level && strings.HasPrefix(l[h:], " ") {
			break
		}
		end += len(l)
	}
	return md[i:end]
}

var nanOrInf = regexp.MustCompile(`\b(NaN|[+-]?Inf)\b`)
