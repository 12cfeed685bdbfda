package cli

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestSignalHandler: the first signal cancels the command's context, the
// second exits with the signal's code within forceGrace unless the
// command returns first; a stopped command's code says which signal.
func TestSignalHandler(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sigs       []os.Signal
		returns    bool // the command returns before the grace is over
		wantExit   int  // -1: exit is not called
		cmdCode    int
		wantCode   int
		wantCancel bool
	}{
		{"none", nil, true, -1, ExitOK, ExitOK, false},
		{"one SIGINT", []os.Signal{os.Interrupt}, true, -1, ExitInterrupted, ExitInterrupted, true},
		{"one SIGTERM", []os.Signal{syscall.SIGTERM}, true, -1, ExitInterrupted, ExitTerminated, true},
		{"SIGTERM, command failed", []os.Signal{syscall.SIGTERM}, true, -1, ExitError, ExitTerminated, true},
		{"SIGTERM, command completed", []os.Signal{syscall.SIGTERM}, true, -1, ExitOK, ExitOK, true},
		{"two SIGINT", []os.Signal{os.Interrupt, os.Interrupt}, false, ExitInterrupted, 0, 0, true},
		{"SIGINT then SIGTERM", []os.Signal{os.Interrupt, syscall.SIGTERM}, false, ExitTerminated, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exited := make(chan int, 1)
			h := newSignalHandler(context.Background(), func(c int) { exited <- c }, io.Discard)
			defer h.stop()
			sent := time.Now()
			for _, s := range tc.sigs {
				h.ch <- s
			}
			if tc.wantCancel {
				select {
				case <-h.ctx.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("the first signal did not cancel the context")
				}
			}
			if tc.wantExit >= 0 {
				select {
				case c := <-exited:
					if c != tc.wantExit {
						t.Errorf("exit(%d), want exit(%d)", c, tc.wantExit)
					}
					if d := time.Since(sent); d > time.Second {
						t.Errorf("exited %s after the second signal, want under 1s", d)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("a second signal did not exit")
				}
				return
			}
			if got := h.code(tc.cmdCode); got != tc.wantCode {
				t.Errorf("code(%d) = %d, want %d", tc.cmdCode, got, tc.wantCode)
			}
		})
	}
}

// TestSecondSignalWaitsForAStopThatFinishes: a command that returns within
// the grace after the second signal is not cut short.
func TestSecondSignalWaitsForAStopThatFinishes(t *testing.T) {
	exited := make(chan int, 1)
	h := newSignalHandler(context.Background(), func(c int) { exited <- c }, io.Discard)
	h.ch <- os.Interrupt
	<-h.ctx.Done()
	h.ch <- os.Interrupt
	time.Sleep(forceGrace / 5)
	h.stop()
	select {
	case c := <-exited:
		t.Errorf("exit(%d) after the command returned", c)
	case <-time.After(2 * forceGrace):
	}
}
