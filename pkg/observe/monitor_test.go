package observe

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// steadyPoller is a component using exactly cores CPU since it was made,
// and a second component that cannot be read.
type steadyPoller struct {
	born  time.Time
	cores float64
}

func (p *steadyPoller) Source() string { return SourceLocal }
func (p *steadyPoller) Components() []Component {
	return []Component{{Name: "steady", Role: "backend"}, {Name: "gone"}}
}
func (p *steadyPoller) Poll(now time.Time) ([]Point, error) {
	pt := unknownPoint(time.Now())
	pt.CPUSeconds = time.Since(p.born).Seconds() * p.cores
	pt.MemBytes = 1 << 20
	return []Point{pt, {}}, errors.New("gone: no such process")
}

func TestMonitorWindowAndWarnings(t *testing.T) {
	m := NewMonitor([]Sampler{&steadyPoller{born: time.Now(), cores: 0.5}}, 100*time.Millisecond)
	m.Idle = 200 * time.Millisecond
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.Sleep(550 * time.Millisecond)
	end := time.Now()
	us := m.Usage(start, end, 1000)
	m.Stop()
	if len(us) != 2 {
		t.Fatalf("got %d usages, want 2", len(us))
	}
	u := us[0]
	if math.Abs(u.CPUMean-0.5) > 0.02 || math.Abs(u.CPUIdle-0.5) > 0.02 || math.Abs(u.CPUSecondsPer1k-0.275) > 0.02 {
		t.Errorf("steady 0.5 cores: idle %v mean %v per1k %v", u.CPUIdle, u.CPUMean, u.CPUSecondsPer1k)
	}
	if math.Abs(u.RPSPerCore-1000/0.55/0.5) > 150 {
		t.Errorf("rps per core = %v, want about %v", u.RPSPerCore, 1000/0.55/0.5)
	}
	if n := len(u.Samples); n < 5 || u.Samples[n-1].T < 0.55 {
		t.Errorf("samples %+v: want the window covered to its end (catch-up poll)", u.Samples)
	}
	if us[1].Name != "gone" || us[1].CPUMean != 0 {
		t.Errorf("unreadable component: %+v", us[1])
	}
	if w := m.Warnings(); len(w) != 1 || w[0] != "gone: no such process" {
		t.Errorf("warnings = %q", w)
	}
}

// A poller added while the monitor runs is sampled from then on.
func TestMonitorAdd(t *testing.T) {
	m := NewMonitor([]Sampler{&steadyPoller{born: time.Now(), cores: 0.5}}, 50*time.Millisecond)
	m.Idle = 50 * time.Millisecond
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	m.Add(&steadyPoller{born: time.Now(), cores: 0.25})
	start := time.Now()
	time.Sleep(300 * time.Millisecond)
	us := m.Usage(start, time.Now(), 100)
	if len(us) != 4 {
		t.Fatalf("got %d usages, want 4 (two pollers of two components)", len(us))
	}
	if math.Abs(us[2].CPUMean-0.25) > 0.03 {
		t.Errorf("added component: mean %v cores, want 0.25", us[2].CPUMean)
	}
}
