package observe

import (
	"context"
	"maps"
	"time"
)

// Settle bounds ReadSettled: the API server writes a review's audit event
// (and counts it) after it has answered, so the last requests of a window
// are still being recorded when the load ends; on a busy host that lag was
// seen to reach tens of reviews.
const (
	SettleQuiet = 250 * time.Millisecond
	SettleMax   = 3 * time.Second
)

// ReadSettled reads c until two reads SettleQuiet apart agree, or SettleMax
// has passed, and returns the last read.
func ReadSettled(ctx context.Context, c ReviewCounter) (ReviewTally, error) {
	t, err := c.Read(ctx)
	deadline := time.Now().Add(SettleMax)
	for err == nil && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return t, nil
		case <-time.After(SettleQuiet):
		}
		next, nerr := c.Read(ctx)
		if nerr != nil {
			return t, nil // keep what was read; the window stays exact up to it
		}
		if maps.Equal(next.By, t.By) {
			return next, nil
		}
		t = next
	}
	return t, err
}
