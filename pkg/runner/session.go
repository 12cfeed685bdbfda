package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Common configures what every measured run shares, whoever drives it
// (run, ladder, demo, capacity).
type Common struct {
	// Out is the runs directory. Default "": no files are written.
	Out string
	// CommandLine is recorded in run.json after redaction (redact.Args).
	CommandLine []string
	// Version is authbench's version, recorded in run.json.
	Version string
	// Log receives human messages (stderr in the CLI). Default io.Discard.
	Log io.Writer
	// Monitor, when set, samples components during every phase.
	Monitor *observe.Monitor
	// Reviews, when set, counts the Kubernetes API server's TokenReviews
	// and SubjectAccessReviews around every recorded phase
	// (results.Result.APIServer).
	Reviews observe.ReviewCounter
	// Gateways, when set, are read around every recorded phase of a
	// target they serve (results.Result.Gateway).
	Gateways observe.GatewayReaders
	// Lab describes the lab being observed, if any.
	Lab *results.Lab
	// Faults, when set, gives the faults set on or cleared from the
	// observed lab's links between a run's start and end, read once the
	// load is over and before the analysis, whose findings use them
	// (results.Run.Faults). Default nil: none.
	Faults FaultLog
	// Executor runs the load. Default NewLocal(): this process.
	Executor Executor
	// Sinks take the finished run after its run.json (Record). Default
	// none: the run directory holds run.json, timeline.json and the
	// histogram logs.
	Sinks []Sink
	// Watch, when set, sees every recorded phase live. Default none.
	Watch Watcher
}

// Session is one measured run in progress: its record, timeline,
// directory, sampler and executor. Run and the ladder drive one each.
type Session struct {
	// Run is the record written as run.json.
	Run *results.Run
	// Timeline is what timeline.json holds.
	Timeline *results.Timeline
	// Dir is the run directory ("" until CreateDir, or without Out).
	Dir     string
	c       Common
	targets []plan.Target
}

// NewSession starts the record of a run named name (ID, environment,
// redacted command line) and prepares the executor for targets.
func NewSession(ctx context.Context, c Common, name string, client plan.Client, targets []plan.Target) (*Session, error) {
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Executor == nil {
		c.Executor = NewLocal()
	}
	if err := c.Executor.Prepare(ctx, client, targets); err != nil {
		c.Executor.Close()
		return nil, err
	}
	start := time.Now()
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: c.Version, Name: name,
		ID: NewID(start), Start: start.UTC(), CommandLine: redact.Args(c.CommandLine),
		Environment: Environment(), Lab: c.Lab,
	}
	return &Session{Run: run, Timeline: &results.Timeline{}, c: c, targets: targets}, nil
}

// NewID is the one run-id format: the start time and a short
// disambiguator.
func NewID(t time.Time) string {
	return fmt.Sprintf("%s-%04x", t.UTC().Format(store.DirTimeFormat), uint16(os.Getpid()^t.Nanosecond()))
}

// Environment is the one fingerprint of the load generator's host.
func Environment() results.Environment {
	host, _ := os.Hostname()
	return results.Environment{Host: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

// Executor is the session's executor.
func (s *Session) Executor() Executor { return s.c.Executor }

// Log is where the session's messages go.
func (s *Session) Log() io.Writer { return s.c.Log }

// Close releases the executor.
func (s *Session) Close() error { return s.c.Executor.Close() }

// CreateDir creates the run directory under Out (nothing without Out).
func (s *Session) CreateDir() error {
	if s.c.Out == "" {
		return nil
	}
	dir, err := store.NewRunDir(s.c.Out, s.Run.Name, s.Run.Start)
	if err != nil {
		return err
	}
	s.Dir = dir
	return nil
}

// Probe fingerprints target i and records it in the environment.
func (s *Session) Probe(ctx context.Context, i int) results.TargetFingerprint {
	fp := s.c.Executor.Probe(ctx, i)
	// The error quotes the URL (net/http does); a server may echo a
	// credential in its Server header.
	fp.URL, fp.Error, fp.Server = redact.URL(fp.URL), redact.Text(fp.Error), redact.Header("Server", fp.Server)
	s.Run.Environment.Targets = append(s.Run.Environment.Targets, fp)
	return fp
}

// Sample starts the monitor; stop ends it. A monitor that cannot start
// is a warning: the run goes on without resource figures.
func (s *Session) Sample(ctx context.Context) (stop func()) {
	if s.c.Monitor == nil {
		return func() {}
	}
	if err := s.c.Monitor.Start(ctx); err != nil {
		fmt.Fprintf(s.c.Log, "warning: resource sampling disabled: %v\n", err)
		s.c.Monitor = nil
		return func() {}
	}
	return s.c.Monitor.Stop
}

// Unrecorded runs a phase that is not part of the results (a warm-up, a
// capacity probe); true means interrupted.
func (s *Session) Unrecorded(ctx context.Context, target int, spec load.Spec) (*Measured, bool) {
	m, err := s.c.Executor.Execute(ctx, Phase{Target: target, Spec: spec})
	if err != nil {
		fmt.Fprintf(s.c.Log, "warning: %v\n", err)
		return nil, ctx.Err() != nil
	}
	return m, m.Partial || ctx.Err() != nil
}

// Measure runs one recorded phase of target i (named name in the
// results) as iteration it: its histogram log is written into the run
// directory, its components sampled, its result and timeline recorded.
// True means interrupted; what was measured is kept either way.
func (s *Session) Measure(ctx context.Context, i int, name string, it int, spec load.Spec, progress *load.Progress) (*Measured, bool) {
	ph := Phase{Target: i, Spec: spec, Progress: progress}
	var end func(*results.Result)
	ph.Intervals, end = s.watchBegin(name, it, spec)
	hlogName := store.HistogramFileName(name, it)
	var hlog *atomicfile.File
	if s.Dir != "" {
		f, err := atomicfile.Create(filepath.Join(s.Dir, hlogName), store.ResultMode)
		if err != nil {
			fmt.Fprintf(s.c.Log, "warning: creating histogram log: %v\n", err)
		} else {
			hlog, ph.HistogramLog = f, f
		}
	}
	before := s.readReviews(ctx)
	gw := s.gateway(i)
	gwBefore := s.readGateway(ctx, gw)
	host, hostErr := observe.ReadHost("")
	m, err := s.c.Executor.Execute(ctx, ph)
	if err != nil {
		if hlog != nil {
			hlog.Abort()
		}
		fmt.Fprintf(s.c.Log, "warning: %s iteration %d: %v\n", name, it, err)
		end(nil)
		return nil, ctx.Err() != nil
	}
	res := m.Result
	res.Target, res.Iteration = name, it
	if hlog != nil {
		s.commitLog(hlog, m, &res, hlogName)
	}
	if hostErr == nil {
		res.Host = hostWindow(host)
	}
	if s.c.Monitor != nil {
		res.Components = s.c.Monitor.Usage(res.Start, res.End, res.Requests)
		stageUsage(s.c.Monitor, res.Stages)
	}
	if s.c.Reviews != nil {
		res.APIServer = observe.ReviewWindow(s.c.Reviews.Source(), before, s.readReviews(ctx), res.Requests)
	}
	if gw != nil {
		res.Gateway = observe.GatewayWindow(gw.Component(), gwBefore, s.readGateway(ctx, gw))
	}
	s.Run.Results = append(s.Run.Results, res)
	end(&res)
	s.Timeline.Series = append(s.Timeline.Series, results.Series{Target: name, Iteration: it, Points: m.Series})
	return m, m.Partial || ctx.Err() != nil
}

// hostWindow is the host's CPU from reading a to now; nil when /proc/stat
// cannot be read (not Linux), which the host-contention finding then reads
// as unknown.
func hostWindow(a observe.HostReading) *results.HostCPU {
	b, err := observe.ReadHost("")
	if err != nil {
		return nil
	}
	return observe.HostWindow(a, b)
}

// commitLog moves a complete histogram log into place and names it in
// the result; a log the engine could not write is dropped.
func (s *Session) commitLog(f *atomicfile.File, m *Measured, res *results.Result, name string) {
	if m.LogErr != nil {
		f.Abort()
		fmt.Fprintf(s.c.Log, "warning: writing histogram log: %v\n", m.LogErr)
		return
	}
	if err := f.Commit(); err != nil {
		fmt.Fprintf(s.c.Log, "warning: %v\n", err)
		return
	}
	res.HistogramFile = name
}

// Finish closes the record: end time, the interruption (Run.Partial) and
// the findings. Callers add what only they know, then Write.
func (s *Session) Finish(interrupted bool) {
	s.Run.End = time.Now().UTC()
	s.Run.Partial = interrupted
	s.readFaults()
	s.Run.Findings = analyze.Diagnose(s.Run, s.Timeline)
	if s.c.Monitor != nil {
		for _, w := range s.c.Monitor.Warnings() {
			fmt.Fprintln(s.c.Log, "warning:", w)
		}
	}
}

// FaultLog reads the faults of a lab's links from start to end (the
// lab's fault log, wired by the CLI), so that the runner knows no lab.
type FaultLog func(start, end time.Time) ([]results.FaultEvent, error)

// readFaults copies the run's faults into its record; a log that cannot
// be read is a warning, the run keeps its figures without them.
func (s *Session) readFaults() {
	if s.c.Faults == nil {
		return
	}
	evs, err := s.c.Faults(s.Run.Start, s.Run.End)
	if err != nil {
		fmt.Fprintf(s.c.Log, "warning: the lab's faults not recorded: %v\n", err)
		return
	}
	s.Run.Faults = evs
}

// Write records the run directory, run.json first, and hands it to the
// session's sinks (Record); nothing without a directory.
func (s *Session) Write(ctx context.Context) error {
	if s.Dir == "" {
		return nil
	}
	return Record(ctx, s.Outcome(), s.c.Sinks)
}

// Outcome is what the session produced.
func (s *Session) Outcome() *Outcome {
	return &Outcome{Dir: s.Dir, Run: s.Run, Timeline: s.Timeline}
}

// readReviews reads the review counter; a counter that fails is a
// warning, and the run goes on without review counts (a zero tally makes
// ReviewWindow return nil).
func (s *Session) readReviews(ctx context.Context) observe.ReviewTally {
	if s.c.Reviews == nil {
		return observe.ReviewTally{}
	}
	t, err := s.c.Reviews.Read(ctx)
	if err != nil {
		fmt.Fprintf(s.c.Log, "warning: API server reviews not counted: %v\n", err)
		s.c.Reviews = nil
	}
	return t
}

// gateway is the gateway in front of target i, if one is known.
func (s *Session) gateway(i int) observe.GatewayReader {
	if i < 0 || i >= len(s.targets) {
		return nil
	}
	return s.c.Gateways.For(s.targets[i].URL)
}

// readGateway reads a gateway's metrics; a gateway that cannot be read
// is a warning, and the phase goes on without its account (a zero
// reading makes GatewayWindow return nil).
func (s *Session) readGateway(ctx context.Context, g observe.GatewayReader) observe.GatewayReading {
	if g == nil {
		return observe.GatewayReading{}
	}
	r, err := g.Read(ctx)
	if err != nil {
		fmt.Fprintf(s.c.Log, "warning: the gateway's own account not read: %v\n", err)
	}
	return r
}
