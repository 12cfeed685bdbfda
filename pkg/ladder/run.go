package ladder

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// ladderRun is one ladder in progress.
type ladderRun struct {
	o        *Options
	attacker *load.Attacker
	slots    []*slot  // inside out, the end-to-end slot last
	layers   []string // from the client inwards
	rate     float64
	fraction float64
	run      *results.Run
	tl       *results.Timeline
	dir      string
	notes    []string
}

func newLadderRun(ctx context.Context, o *Options) (*ladderRun, error) {
	slots, layers, err := buildSlots(ctx, o.Target)
	if err != nil {
		return nil, err
	}
	a, err := load.NewAttacker(o.Client)
	if err != nil {
		return nil, fmt.Errorf("preparing http client: %w", err)
	}
	start := time.Now()
	l := &ladderRun{o: o, attacker: a, slots: slots, layers: layers, tl: &results.Timeline{}}
	l.run = &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: o.Version, Name: o.Name,
		ID:    fmt.Sprintf("%s-%04x", start.UTC().Format(store.DirTimeFormat), uint16(os.Getpid()^start.Nanosecond())),
		Start: start.UTC(), CommandLine: redactArgs(o.CommandLine), Environment: environment(), Lab: o.Lab,
	}
	return l, nil
}

// prepare fingerprints every slot, tells ext_authz layers apart, probes
// capacities, picks the rate and creates the run directory.
func (l *ladderRun) prepare(ctx context.Context) error {
	if err := l.fingerprint(ctx); err != nil {
		return err
	}
	l.markExtAuthz()
	if err := l.probeCapacity(ctx); err != nil {
		return err
	}
	if err := l.chooseRate(); err != nil {
		return err
	}
	l.run.Plan = l.plan()
	if l.o.Out == "" {
		return nil
	}
	dir, err := store.NewRunDir(l.o.Out, l.o.Name, l.run.Start)
	if err != nil {
		return err
	}
	l.dir = dir
	return nil
}

// plan records the ladder as a plan: one target per slot (so that every
// report reads the per-rung results as it reads any run's), the load
// every turn had, and the rounds as iterations.
func (l *ladderRun) plan() plan.Plan {
	o := l.o
	p := plan.Plan{Name: o.Name, Source: "", Client: o.Client, Load: plan.Load{
		Requests: o.SlotRequests, Duration: plan.Duration(o.SlotDuration), Concurrency: o.Concurrency,
		Rate: l.rate, Iterations: o.Rounds,
	}}
	for _, s := range l.slots {
		t := o.Target
		t.Name, t.URL, t.Rungs = s.name, s.url, nil
		if s.layer != results.EndToEnd {
			t.Host, t.Layers = "", l.reached(s)
			for _, r := range o.Target.Rungs {
				if r.Layer == s.layer {
					t.Headers = append(slices.Clone(t.Headers), r.Headers...)
					if r.Token != nil {
						t.Token = r.Token
					}
				}
			}
		}
		p.Targets = append(p.Targets, t)
	}
	return p
}

// reached lists the layers a slot's requests go through: an ext_authz
// service alone; an inline layer and every layer inside it (an ext_authz
// layer inside it is called by one of them).
func (l *ladderRun) reached(s *slot) []string {
	if s.extAuthz {
		return []string{s.layer}
	}
	if i := slices.Index(l.layers, s.layer); i >= 0 {
		return slices.Clone(l.layers[i:])
	}
	return nil
}

func (l *ladderRun) notef(format string, a ...any) {
	l.notes = append(l.notes, fmt.Sprintf(format, a...))
}

func environment() results.Environment {
	host, _ := os.Hostname()
	return results.Environment{Host: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

func redactArgs(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return auth.RedactArgs(args)
}
