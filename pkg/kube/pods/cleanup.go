package pods

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// cleanupTimeout bounds Close's deletion and its wait, on a fresh context
// so that Ctrl-C or a failed run still cleans up.
const cleanupTimeout = 2 * time.Minute

// Close tells the agents to exit, deletes every object of the run (the
// Secret first; the Job with foreground propagation, so its pods go
// with it) and waits until none is left.
func (e *Executor) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.stop()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	e.publish(ctx, Phase{Seq: e.seq + 1, Done: true})
	var firstErr error
	for _, c := range collections {
		path := c.in(e.o.Namespace).With("labelSelector", RunLabel+"="+e.id).With("propagationPolicy", "Foreground")
		if c.kind == "Pod" {
			path = path.With("gracePeriodSeconds", "0")
		}
		code, b, err := e.api.Do(ctx, http.MethodDelete, path, "", nil)
		if err == nil && code/100 != 2 && code != http.StatusNotFound {
			err = fmt.Errorf("%d %s", code, message(b))
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("deleting the run's %ss: %w", c.kind, err)
		}
	}
	for {
		left, err := Remaining(ctx, e.api, e.o.Namespace, e.id)
		if err == nil && len(left) == 0 {
			return firstErr
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cleaning up run %s: still there after %s: %v %v", e.id, cleanupTimeout, left, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
