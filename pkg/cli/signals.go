package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ExitTerminated is the exit code after SIGTERM (128 + 15, as shells
// report a process killed by it); ExitInterrupted is SIGINT's.
const ExitTerminated = 143

// forceGrace is how long a second signal lets the first one's stop finish
// (a run.json being written) before the process exits without it: well
// under the second a user or a supervisor waits after asking twice.
const forceGrace = 500 * time.Millisecond

// signalHandler turns SIGINT and SIGTERM into the command's context: the
// first cancels it, and the command stops gracefully, writing what it
// measured; a second exits the process within forceGrace whatever the
// command is waiting for (a FIFO nobody writes, requests in flight until
// their timeout).
type signalHandler struct {
	ch     chan os.Signal
	ctx    context.Context
	cancel context.CancelCauseFunc
	exit   func(int)
	log    io.Writer
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	first os.Signal
}

// handleSignals starts a signalHandler for the process; exit ends the
// process (os.Exit). stop releases the signals once the command returned.
func handleSignals(parent context.Context, exit func(int), log io.Writer) (context.Context, *signalHandler) {
	h := newSignalHandler(parent, exit, log)
	signal.Notify(h.ch, os.Interrupt, syscall.SIGTERM)
	return h.ctx, h
}

func newSignalHandler(parent context.Context, exit func(int), log io.Writer) *signalHandler {
	ctx, cancel := context.WithCancelCause(parent)
	h := &signalHandler{ch: make(chan os.Signal, 2), cancel: cancel, exit: exit, log: log, done: make(chan struct{}), ctx: ctx}
	go h.loop()
	return h
}

func (h *signalHandler) loop() {
	for {
		select {
		case <-h.done:
			return
		case s := <-h.ch:
			if h.received(s) {
				fmt.Fprintf(h.log, "authbench: %s: stopping; a second signal exits at once\n", signalName(s))
				h.cancel(fmt.Errorf("interrupted by %s", signalName(s)))
				continue
			}
			h.force(s)
			return
		}
	}
}

// received records s and reports whether it is the first signal.
func (h *signalHandler) received(s os.Signal) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first != nil {
		return false
	}
	h.first = s
	return true
}

// force exits with s's code, after letting a stop that is about to
// finish do so.
func (h *signalHandler) force(s os.Signal) {
	fmt.Fprintf(h.log, "authbench: %s again: exiting without waiting for the run to stop\n", signalName(s))
	select {
	case <-h.done:
	case <-time.After(forceGrace):
		h.exit(signalCode(s))
	}
}

// stop releases the signals; the command has returned.
func (h *signalHandler) stop() {
	signal.Stop(h.ch)
	h.once.Do(func() { close(h.done) })
}

// code is the process's exit code for a command that returned code: a
// command a signal stopped, and that did not complete, exits 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM).
func (h *signalHandler) code(code int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first == nil || code == ExitOK {
		return code
	}
	return signalCode(h.first)
}

func signalCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}
