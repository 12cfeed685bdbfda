package pods

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
)

// cleanupTimeout bounds Close's deletion and its wait, on a fresh context
// so that Ctrl-C or a failed run still cleans up.
const cleanupTimeout = 2 * time.Minute

// Close tells the agents to exit, deletes every object of the run (the
// Secret first; the Job with foreground propagation, so its pods go
// with it) and waits until none is left. A run that created nothing
// (its Job was refused) sends nothing: there is nothing of its own to
// delete.
func (e *Executor) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.stop()
	if !e.created {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	e.publish(ctx, Phase{Seq: e.seq + 1, Done: true})
	var firstErr error
	for _, c := range collections {
		err := deleteSelected(ctx, e.api, c.kind, c.in(e.o.Namespace), runSelector(e.id))
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

// errNoSelector refuses a collection delete that would select everything.
var errNoSelector = errors.New("refusing to delete a collection without a label selector")

// deleteSelected deletes the objects of a collection that sel's label
// selector selects. A selector is required: a collection DELETE without
// one deletes every object of the kind in the namespace.
func deleteSelected(ctx context.Context, api APIClient, kind string, collection kubeapi.URLPath, sel url.Values) error {
	if s := sel.Get("labelSelector"); s == "" || strings.HasSuffix(s, "=") {
		return errNoSelector
	}
	p := collection.With("labelSelector", sel.Get("labelSelector")).With("propagationPolicy", "Foreground")
	if kind == "Pod" {
		p = p.With("gracePeriodSeconds", "0")
	}
	code, b, err := api.Do(ctx, http.MethodDelete, p, "", nil)
	if err == nil && code/100 != 2 && code != http.StatusNotFound {
		err = fmt.Errorf("%d %s", code, kubeapi.Message(b))
	}
	return err
}
