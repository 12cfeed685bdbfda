package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// execution is the state of one run in progress.
type execution struct {
	o        Options
	plan     *plan.Plan
	attacker *load.Attacker
	targets  []target
	dir      string
	run      *results.Run
	tl       *results.Timeline
}

// execute runs probes, warm-up and iterations. It reports whether the run
// was interrupted; whatever was measured is kept in e.run either way.
func (e *execution) execute(ctx context.Context) (interrupted bool) {
	for _, t := range e.targets {
		e.run.Environment.Targets = append(e.run.Environment.Targets, probe(ctx, e.attacker, t))
	}
	if e.o.Monitor != nil {
		if err := e.o.Monitor.Start(ctx); err != nil {
			fmt.Fprintf(e.o.Log, "warning: resource sampling disabled: %v\n", err)
			e.o.Monitor = nil
		} else {
			defer e.o.Monitor.Stop()
		}
	}
	if e.warmup(ctx) {
		return true
	}
	// Iterations run outermost so that drift (a noisy neighbour, a cache
	// warming) hits every target alike instead of one target's block.
	for it := 1; it <= e.plan.Load.Iterations; it++ {
		if it > 1 && sleep(ctx, e.plan.Load.Delay.D()) {
			return true
		}
		for _, t := range e.targets {
			if e.iteration(ctx, t, it) {
				return true
			}
		}
	}
	return false
}

// iteration runs one target once and records it; true means interrupted.
func (e *execution) iteration(ctx context.Context, t target, it int) bool {
	fmt.Fprintf(e.o.Log, "%s: iteration %d/%d\n", t.plan.Name, it, e.plan.Load.Iterations)
	hlogName := store.HistogramFileName(t.plan.Name, it)
	hlog, err := newAtomicFile(filepath.Join(e.dir, hlogName))
	if err != nil {
		fmt.Fprintf(e.o.Log, "warning: %v\n", err)
	}
	opts := []load.AttackOption{}
	if hlog != nil {
		opts = append(opts, load.WithHistogramLog(hlog))
	}
	progress := &load.Progress{}
	opts = append(opts, load.WithProgress(progress))
	stop := e.showProgress(t.plan.Name, it, progress)
	m := e.attacker.Attack(ctx, t.request, spec(e.plan.Load), opts...)
	stop()
	res := m.Result()
	res.Target, res.Iteration = t.plan.Name, it
	if hlog != nil {
		if err := hlog.Commit(); err != nil {
			fmt.Fprintf(e.o.Log, "warning: %v\n", err)
		} else {
			res.HistogramFile = hlogName
		}
	}
	if e.o.Monitor != nil {
		res.Components = e.o.Monitor.Usage(res.Start, res.End, res.Requests)
	}
	e.run.Results = append(e.run.Results, res)
	e.tl.Series = append(e.tl.Series, results.Series{Target: res.Target, Iteration: it, Points: m.Series()})
	return m.Partial() || ctx.Err() != nil
}

// warmup sends the unrecorded warm-up load to every target.
func (e *execution) warmup(ctx context.Context) bool {
	l := e.plan.Load
	if l.WarmupRequests == 0 && l.WarmupDuration == 0 {
		return false
	}
	s := load.Spec{Model: plan.Closed, Requests: l.WarmupRequests, Duration: l.WarmupDuration.D(), Concurrency: l.Concurrency}
	if s.Requests > 0 && int64(s.Concurrency) > s.Requests {
		s.Concurrency = int(s.Requests)
	}
	for _, t := range e.targets {
		fmt.Fprintf(e.o.Log, "%s: warm-up (%s), not recorded\n", t.plan.Name, warmupText(l))
		if e.attacker.Attack(ctx, t.request, s).Partial() || ctx.Err() != nil {
			return true
		}
	}
	return false
}

func warmupText(l plan.Load) string {
	if l.WarmupDuration > 0 {
		return l.WarmupDuration.String()
	}
	return fmt.Sprintf("%d requests", l.WarmupRequests)
}

// spec translates the plan's load into one attack.
func spec(l plan.Load) load.Spec {
	return load.Spec{
		Model:       l.Model(),
		Requests:    l.Requests,
		Duration:    l.Duration.D(),
		Concurrency: l.Concurrency,
		Rate:        l.Rate,
	}
}

// sleep waits d or until ctx is done; true means interrupted.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() != nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}

// atomicFile streams into a temp file and renames it into place on Commit,
// so an .hlog is either complete or absent.
type atomicFile struct {
	*os.File
	path string
}

func newAtomicFile(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("creating histogram log: %w", err)
	}
	return &atomicFile{File: f, path: path}, nil
}

// Commit closes the file and moves it into place.
func (f *atomicFile) Commit() error {
	if err := f.File.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing histogram log: %w", err)
	}
	os.Chmod(f.Name(), 0o644)
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing histogram log: %w", err)
	}
	return nil
}
