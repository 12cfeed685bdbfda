package standin

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// limiter is a token bucket as client-go's default rate limiter is: qps
// tokens a second, up to burst at once; a call that finds the bucket empty
// waits its turn (reserving a token ahead), and one that gives up returns
// its token. client-go logs "Waited ... due to client-side throttling"
// where this one only waits.
type limiter struct {
	mu     sync.Mutex
	qps    float64
	burst  float64
	tokens float64
	last   time.Time
}

// newLimiter starts full, as client-go's bucket does. qps <= 0 is no limit.
func newLimiter(qps float64, burst int) *limiter {
	if qps <= 0 {
		return nil
	}
	b := float64(max(burst, 1))
	return &limiter{qps: qps, burst: b, tokens: b, last: time.Now()}
}

// reserve takes a token and says how long to wait until it is due.
func (l *limiter) reserve(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.qps)
	l.last = now
	l.tokens--
	if l.tokens >= 0 {
		return 0
	}
	return time.Duration(-l.tokens / l.qps * float64(time.Second))
}

func (l *limiter) giveBack() {
	l.mu.Lock()
	l.tokens = min(l.burst, l.tokens+1)
	l.mu.Unlock()
}

// Wait blocks until the caller may make one API call, or ctx ends first
// (then it fails at once if its deadline comes before the token, as
// client-go's does).
func (l *limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	d := l.reserve(now)
	if d == 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(now.Add(d)) {
		l.giveBack()
		return fmt.Errorf("client-side rate limit: the wait of %s would exceed the request's deadline", d.Round(time.Millisecond))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		l.giveBack()
		return ctx.Err()
	}
}
