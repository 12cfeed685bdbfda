package toolcache

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress serialises the lines of concurrently running steps.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	every time.Duration // heartbeat period
}

func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// stepLog prints the lines of one step: "[3/7] kube-apiserver v1.32.2: ...".
type stepLog struct {
	p     *progress
	index int
	label string
	doing *atomic.Pointer[string] // what heartbeat lines say the step is doing
}

// setDoing changes what the heartbeat says, e.g. "building (go build)".
func (s stepLog) setDoing(doing string) {
	if s.doing != nil {
		s.doing.Store(&doing)
	}
}

func (s stepLog) line(format string, args ...any) {
	s.p.printf("[%d/%d] %s: %s", s.index, s.p.total, s.label, fmt.Sprintf(format, args...))
}

// heartbeat prints "still <doing> (elapsed)" every period until stop is
// called, so a CI log shows life during a 10-minute build. It returns the
// stepLog whose setDoing changes the text.
func (s stepLog) heartbeat(doing string, start time.Time) (_ stepLog, stop func()) {
	s.doing = new(atomic.Pointer[string])
	s.setDoing(doing)
	if s.p.every <= 0 {
		return s, func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(s.p.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.line("still %s (%s)", *s.doing.Load(), roundDur(time.Since(start)))
			}
		}
	}()
	return s, func() { close(done); wg.Wait() }
}

// roundDur prints 7m12s, 1.3s or 12ms rather than 7m12.345678901s.
func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}
