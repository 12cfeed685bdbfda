//go:build integration

package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalsFIFO runs the real binary on a scenario FIFO nobody writes,
// which blocks its open: one signal stops it at once, with SIGINT's or
// SIGTERM's code, and writes no run.
func TestSignalsFIFO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		t.Run(signalName(tc.sig), func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "scenario.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			out := t.TempDir()
			p := start(t, "run", "-f", fifo, "--out", out)
			time.Sleep(500 * time.Millisecond) // blocked in open by now
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			if code := p.wait(t, 10*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, p.stderr.String())
			}
			if d := time.Since(sent); d > time.Second {
				t.Errorf("took %s to stop after one signal", d)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("wrote %d entries under --out", len(entries))
			}
		})
	}
}

// TestSecondSignalForcesExit runs a load against a server that never
// answers, so the graceful stop waits for requests in flight (up to -t
// 60): a second signal must end the process within a second.
func TestSecondSignalForcesExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		second os.Signal
		code   int
	}{{os.Interrupt, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		t.Run(signalName(tc.second), func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			var srv *counted
			srv = newCounted(t, func(w http.ResponseWriter, r *http.Request) {
				if srv.n.Load() == 1 {
					return // the probe before the load is answered
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(release) })
			p := start(t, "run", "-z", "30s", "-c", "2", "-t", "60", "--out", t.TempDir(), srv.URL)
			deadline := time.Now().Add(15 * time.Second)
			for srv.n.Load() < 3 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			if p.cmd.ProcessState != nil {
				t.Fatal("exited after the first signal with requests in flight")
			}
			if err := p.cmd.Process.Signal(tc.second); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			if code := p.wait(t, 10*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, p.stderr.String())
			}
			if d := time.Since(sent); d > time.Second {
				t.Errorf("took %s to exit after the second signal", d)
			}
		})
	}
}

// TestSIGTERMWritesPartialRun: SIGTERM during a load stops it gracefully
// like SIGINT, writes the partial run, and exits 143.
func TestSIGTERMWritesPartialRun(t *testing.T) {
	t.Parallel()
	srv := newCounted(t, nil)
	out := t.TempDir()
	p := start(t, "run", "-z", "30s", "-c", "2", "--out", out, srv.URL)
	deadline := time.Now().Add(15 * time.Second)
	for srv.n.Load() < 200 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 10*time.Second); code != ExitTerminated {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, ExitTerminated, p.stderr.String())
	}
	run, _ := readRun(t, runDir(t, out))
	if !run.Partial || totalRequests(run) == 0 {
		t.Errorf("run.json partial=%v with %d requests, want a partial run with what was measured", run.Partial, totalRequests(run))
	}
}
