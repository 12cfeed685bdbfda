//go:build integration

package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// tmuxTerm is a tmux server of the test's own, with one pane of a given
// size running a command: a terminal read as a person reads it.
type tmuxTerm struct {
	t      *testing.T
	tmux   string
	socket string
}

func newTmux(t *testing.T, w, h int, command string) *tmuxTerm {
	t.Helper()
	path := testenv.NeedTools(t, exec.LookPath, "install tmux", "tmux")[0]
	x := &tmuxTerm{t: t, tmux: path, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	x.run("new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command)
	t.Cleanup(func() { exec.Command(x.tmux, "-S", x.socket, "kill-server").Run() })
	return x
}

func (x *tmuxTerm) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command(x.tmux, append([]string{"-S", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the pane shows now.
func (x *tmuxTerm) screen() string { return x.run("capture-pane", "-p") }

// watch captures the pane every 200 ms until it shows until or d passes.
func (x *tmuxTerm) watch(until *regexp.Regexp, d time.Duration, each func(string)) string {
	x.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := x.screen()
		each(s)
		if until.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("the pane never showed %s; it shows:\n%s", until, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var (
	exitLine  = regexp.MustCompile(`EXIT=(\d+)`)
	rateLine  = regexp.MustCompile(`(?m)^rate +[\d,.]+ req/s of 200 target`)
	p99Header = regexp.MustCompile(`(?m)^ +P50 +P99 +P50 +P99$`)
	corrected = regexp.MustCompile(`(?m)^corrected +[\d.]+m?s +[\d.]+m?s`)
	selfLine  = regexp.MustCompile(`(?m)^  authbench +[\d.]+ `)
	elapsed   = regexp.MustCompile(`iteration 1/1  (\d+)s of 6s`)
)

// TestLiveInTmux runs `run --live` in tmux at 80x24 and at a wide size,
// reading the pane as it redraws: the rate against the target, P50/P99,
// the sampled components (authbench itself is always sampled); one frame
// on screen at a time; a normal run directory; the view gone at the end.
func TestLiveInTmux(t *testing.T) {
	srv := newCounted(t, nil)
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			out := t.TempDir()
			x := newTmux(t, size.w, size.h, fmt.Sprintf("%s run -q 200 -z 6s --live --out %s %s; echo EXIT=$?; sleep 600", binary, out, srv.URL))
			seen := map[string]bool{}
			wideMem := false
			last := x.watch(exitLine, 60*time.Second, func(s string) {
				if n := len(rateLine.FindAllString(s, -1)); n > 1 {
					t.Errorf("%d frames on screen at once:\n%s", n, s)
				}
				if rateLine.MatchString(s) && p99Header.MatchString(s) && corrected.MatchString(s) && selfLine.MatchString(s) {
					seen[elapsed.FindString(s)] = true
					wideMem = wideMem || strings.Contains(s, " mem ")
				}
			})
			if len(seen) < 2 {
				t.Errorf("the view was not seen redrawing with req/s, P99 and components (frames %v); last screen:\n%s", seen, last)
			}
			if wide := size.w >= 120; wide != wideMem {
				t.Errorf("at %d columns the components' memory shown: %v", size.w, wideMem)
			}
			if code := exitLine.FindStringSubmatch(last)[1]; code != "0" || rateLine.MatchString(last) || !strings.Contains(last, "Results: ") {
				t.Errorf("exit %s; at the end the view should be gone and the report shown:\n%s", code, last)
			}
			run, _ := readRun(t, runDir(t, out))
			if run.Partial || len(run.Results) != 1 || run.Results[0].Requests == 0 {
				t.Errorf("run directory: partial %v, results %+v", run.Partial, run.Results)
			}
		})
	}
}

// TestLiveCtrlC interrupts `run --live` in tmux: the first Ctrl-C stops
// the run gracefully, the partial run is written and the exit code is
// SIGINT's.
func TestLiveCtrlC(t *testing.T) {
	srv := newCounted(t, nil)
	out := t.TempDir()
	x := newTmux(t, 80, 24, fmt.Sprintf("%s run -q 200 -z 60s --live --out %s %s; echo EXIT=$?; sleep 600", binary, out, srv.URL))
	x.watch(corrected, 30*time.Second, func(string) {})
	x.run("send-keys", "C-c")
	last := x.watch(exitLine, 30*time.Second, func(string) {})
	if code := exitLine.FindStringSubmatch(last)[1]; code != fmt.Sprint(ExitInterrupted) {
		t.Errorf("exit %s after Ctrl-C, want %d:\n%s", code, ExitInterrupted, last)
	}
	if !strings.Contains(last, "partial results written") {
		t.Errorf("the screen does not say the partial run was written:\n%s", last)
	}
	run, _ := readRun(t, runDir(t, out))
	if !run.Partial || len(run.Results) != 1 || run.Results[0].Requests == 0 {
		t.Errorf("run directory: partial %v, results %+v", run.Partial, run.Results)
	}
}
