package cli

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/authbench/authbench/pkg/live"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// liveUsage is the --live flag's help, shared by run, capacity and ladder.
const liveUsage = "show a live view of the rate, latency, errors and sampled components, redrawn each second (when stdout is a terminal)"

func addLiveFlag(cmd *cobra.Command, on *bool) { cmd.Flags().BoolVar(on, "live", false, liveUsage) }

// liveSession is a started live view, or nothing when --live was not
// given or stdout is no terminal (the output is then today's).
type liveSession struct {
	view *live.View
	log  io.Writer
}

// newLive makes the view for s.out when on and s.out is a terminal; it
// draws from start on. Its Log replaces s.err where s.err is a terminal
// too, so that the run's messages scroll above the view instead of
// tearing it. monitor is read only once the view started (nil: no live
// components).
func newLive(s streams, on bool, o live.Options, monitor func() *observe.Monitor) *liveSession {
	if !on || !isTerminal(s.out) {
		return &liveSession{log: s.err}
	}
	o.Size = termSize(s.out)
	o.Components = func(d time.Duration) []results.ComponentUsage {
		if m := monitor(); m != nil {
			return m.Recent(d)
		}
		return nil
	}
	v := live.New(s.out, o)
	l := &liveSession{view: v, log: s.err}
	if isTerminal(s.err) {
		l.log = v.Log()
	}
	return l
}

// start begins drawing; ctx's end (the first Ctrl-C) is shown.
func (l *liveSession) start(ctx context.Context) {
	if l.view != nil {
		l.view.Start(ctx)
	}
}

// watcher is the runner's watcher: the view, or nil (never a nil view
// in a non-nil interface).
func (l *liveSession) watcher() runner.Watcher {
	if l.view == nil {
		return nil
	}
	return l.view
}

// stop erases the view, before the command prints its outcome.
func (l *liveSession) stop() {
	if l.view != nil {
		l.view.Close()
	}
}

// termSize reads the terminal's size at each frame (it may be resized).
func termSize(w io.Writer) func() (int, int) {
	f, _ := w.(*os.File)
	return func() (int, int) {
		if f == nil {
			return 80, 24
		}
		c, r, err := term.GetSize(int(f.Fd()))
		if err != nil || c <= 0 || r <= 0 {
			return 80, 24
		}
		return c, r
	}
}
