package toolcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options say what Install does; the zero value installs every required step.
type Options struct {
	CacheDir string    // default CacheDir()
	Only     []string  // step names to run (see StepNames); default all required steps
	Optional bool      // also run the optional steps (chromium); default false
	SkipApt  bool      // never run apt-get, only report missing packages; default false
	Out      io.Writer // progress lines; default io.Discard
	// GoBuildP is go build's -p; default the number of CPUs. Builds never
	// overlap within one Install: kube-apiserver alone peaks at ~2 GB RSS.
	GoBuildP  int
	Heartbeat time.Duration // period of "still building" lines; default 30s
}

// Status is the outcome of one step.
type Status string

// Step outcomes.
const (
	StatusCached    Status = "cached"    // already present, nothing run
	StatusInstalled Status = "installed" // built, downloaded or apt-installed now
	StatusSkipped   Status = "skipped"   // not run (SkipApt)
	StatusFailed    Status = "failed"
)

// StepReport is what happened in one step.
type StepReport struct {
	Name    string
	Version string // pinned version, "" for Debian package groups
	Status  Status
	Path    string // the installed program or directory, when there is one
	Detail  string // e.g. the missing packages of a skipped apt step
	Elapsed time.Duration
	Err     error
}

// Report is the outcome of Install, steps in their printed order.
type Report struct {
	CacheDir string
	Steps    []StepReport
	Elapsed  time.Duration
}

// step is one unit of installation.
type step struct {
	name, version string
	optional      bool
	system        bool // runs in the system lane (apt, Maven) beside the Go builds
	// probe is fast (no network, no build) and says whether the step is done.
	probe func(ctx context.Context) (path string, done bool, why string, err error)
	// install does the work, logging commands and output to log.
	install func(ctx context.Context, s stepLog, log io.Writer) (path string, err error)
	// verb is shown while installing: "building", "installing", "downloading".
	verb string
	// prefetch, when set, does the network-bound first part of install in
	// a lane of its own, ahead of install; release frees what it kept.
	prefetch func(ctx context.Context, s stepLog)
	release  func()
}

func (s step) label() string {
	if s.version == "" {
		return s.name
	}
	return s.name + " " + s.version
}

// StepNames lists every step Install knows, in order; optional ones included.
func StepNames() []string {
	var names []string
	for _, s := range allSteps(&installer{}) {
		names = append(names, s.name)
	}
	return names
}

// installer carries the state shared by the steps of one Install call.
type installer struct {
	cache   string
	opts    Options
	aptOnce sync.Once
	aptErr  error // result of the one apt-get update per Install
}

func allSteps(in *installer) []step {
	steps := append(aptSteps(in), kubeSteps(in)...)
	for _, t := range Tools() {
		steps = append(steps, goToolStep(in, t))
	}
	steps = append(steps, keycloakStep(in))
	steps = append(steps, wheelSteps(in)...)
	return append(steps, searchSteps(in)...)
}

// Install runs every selected step, skipping what is already present, and
// prints one line per step to o.Out. A failed step does not stop the others;
// the returned error names each failed step and what to do.
func Install(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	o = withDefaults(o)
	in := &installer{cache: o.CacheDir, opts: o}
	steps, err := selectSteps(allSteps(in), o)
	if err != nil {
		return nil, err
	}
	p := &progress{w: o.Out, total: len(steps), every: o.Heartbeat}
	p.printf("authbench lab install: %s, cache %s", plural(len(steps), "step"), o.CacheDir)
	rep := &Report{CacheDir: o.CacheDir, Steps: make([]StepReport, len(steps))}
	// Probing is fast, so every step is probed first and in order: a warm
	// run prints its lines in order and starts nothing.
	var system, builds []int
	for i, s := range steps {
		sl := stepLog{p: p, index: i + 1, label: s.label()}
		var done bool
		if rep.Steps[i], done = in.probe(ctx, sl, s); done {
			continue
		}
		if s.system {
			system = append(system, i)
		} else {
			builds = append(builds, i)
		}
	}
	runLanes(ctx, in, p, steps, rep, system, builds)
	rep.Elapsed = time.Since(start)
	var errs []error
	for _, s := range rep.Steps {
		if s.Err != nil {
			errs = append(errs, s.Err)
		}
	}
	if len(errs) > 0 {
		p.printf("lab install: %d of %d steps failed after %s", len(errs), len(steps), roundDur(rep.Elapsed))
		return rep, errors.Join(errs...)
	}
	p.printf("lab install: done in %s", roundDur(rep.Elapsed))
	return rep, nil
}

// runLanes runs three lanes side by side: apt and Maven (network- and
// disk-bound), the Go tools' module downloads, and the CPU-bound Go builds,
// which run one at a time, each after its own downloads.
func runLanes(ctx context.Context, in *installer, p *progress, steps []step, rep *Report, system, builds []int) {
	sl := func(i int) stepLog { return stepLog{p: p, index: i + 1, label: steps[i].label()} }
	var wg sync.WaitGroup
	lane := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	for _, l := range [][]int{system, builds} {
		lane(func() {
			for _, i := range l {
				rep.Steps[i] = in.run(ctx, sl(i), steps[i], rep.Steps[i].Detail)
			}
		})
	}
	lane(func() {
		for _, i := range builds {
			if steps[i].prefetch != nil && ctx.Err() == nil {
				steps[i].prefetch(ctx, sl(i))
			}
		}
	})
	wg.Wait()
	for _, i := range builds {
		if steps[i].release != nil {
			steps[i].release()
		}
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func withDefaults(o Options) Options {
	if o.CacheDir == "" {
		o.CacheDir = CacheDir()
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.GoBuildP <= 0 {
		o.GoBuildP = runtime.NumCPU()
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = 30 * time.Second
	}
	return o
}

// selectSteps applies Only and Optional, keeping the canonical order.
func selectSteps(all []step, o Options) ([]step, error) {
	var names []string
	for _, s := range all {
		names = append(names, s.name)
	}
	for _, n := range o.Only {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("unknown install step %q (known: %s)", n, strings.Join(names, ", "))
		}
	}
	var out []step
	for _, s := range all {
		switch {
		case len(o.Only) > 0 && !slices.Contains(o.Only, s.name):
		case len(o.Only) == 0 && s.optional && !o.Optional:
		default:
			out = append(out, s)
		}
	}
	return out, nil
}

// probe reports a step that is done (cached), failed to probe, or skipped
// under SkipApt; otherwise done is false and Detail says why work is needed.
func (in *installer) probe(ctx context.Context, sl stepLog, s step) (r StepReport, done bool) {
	start := time.Now()
	r = StepReport{Name: s.name, Version: s.version}
	path, ok, why, err := s.probe(ctx)
	r.Elapsed = time.Since(start)
	switch {
	case err != nil:
		sl.line("FAILED: %v", err)
		r.Status, r.Err = StatusFailed, fmt.Errorf("step %s: %w", s.label(), err)
	case ok:
		sl.line("cached (%s)", path)
		r.Status, r.Path = StatusCached, path
	case s.system && in.opts.SkipApt && strings.HasPrefix(why, "missing packages"):
		sl.line("skipped, %s (SkipApt)", why)
		r.Status, r.Detail = StatusSkipped, why
	default:
		r.Detail = why
		return r, false
	}
	return r, true
}

// run installs a step that probe found missing (why says how), under a
// lock shared with other authbench processes.
func (in *installer) run(ctx context.Context, sl stepLog, s step, why string) StepReport {
	start := time.Now()
	r := StepReport{Name: s.name, Version: s.version}
	finish := func(st Status, path string, err error) StepReport {
		r.Status, r.Path, r.Elapsed, r.Err = st, path, time.Since(start), err
		return r
	}
	unlock, err := lockStep(ctx, in.cache, s.name, func() { sl.line("waiting for another authbench install of %s", s.name) })
	if err != nil {
		return finish(StatusFailed, "", fmt.Errorf("step %s: %w", s.label(), err))
	}
	defer unlock()
	// Another process may have finished the step while this one waited.
	if path, done, _, err := s.probe(ctx); err == nil && done {
		sl.line("cached (%s), installed by another process", path)
		return finish(StatusCached, path, nil)
	}
	return in.install(ctx, sl, s, why, finish)
}

func (in *installer) install(ctx context.Context, sl stepLog, s step, why string,
	finish func(Status, string, error) StepReport) StepReport {
	start := time.Now()
	logPath := filepath.Join(in.cache, "logs", strings.ReplaceAll(s.label(), " ", "-")+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return finish(StatusFailed, "", fmt.Errorf("step %s: creating log directory: %w", s.name, err))
	}
	log, err := os.Create(logPath)
	if err != nil {
		return finish(StatusFailed, "", fmt.Errorf("step %s: %w", s.name, err))
	}
	defer log.Close()
	sl.line("%s; %s… (log %s)", why, s.verb, logPath)
	sl, stop := sl.heartbeat(s.verb, start)
	path, err := s.install(ctx, sl, log)
	stop()
	if err != nil {
		sl.line("FAILED after %s: %v", roundDur(time.Since(start)), err)
		return finish(StatusFailed, "", stepError(s, err, logPath))
	}
	sl.line("done in %s (%s)", roundDur(time.Since(start)), path)
	return finish(StatusInstalled, path, nil)
}

// stepError names the step, the cause, the log's last lines and the fix.
func stepError(s step, err error, logPath string) error {
	return fmt.Errorf("step %s failed: %w\nlast lines of %s:\n%sfix the cause and rerun `authbench lab install --only %s`",
		s.label(), err, logPath, logTail(logPath, 15), s.name)
}
