package pods

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/redact"
)

// kubeAPI is what the executor needs of a Kubernetes client
// (kubeapi.Client): requests, and streams for followed logs.
type kubeAPI interface {
	APIClient
	Stream(ctx context.Context, path kubeapi.URLPath) (io.ReadCloser, error)
}

// Reconnection of a dropped log stream.
const (
	// maxDrops bounds the reopened streams in a row that bring no new
	// line while the pod still looks alive, e.g. a container that just
	// exited before its status says so.
	maxDrops = 10
	// reopenWait is the pause before a stream is reopened.
	reopenWait = 300 * time.Millisecond
)

// follow streams one pod's log into the events. A stream that ends while
// the pod's agent still runs (an apiserver or kubelet restart, a dropped
// connection) is reopened where it stopped rather than taken for the pod's
// end: the lines carry the kubelet's timestamps, the new stream starts at
// the last one's second (sinceTime), and lines already seen are skipped.
func (e *Executor) follow(ctx context.Context, idx int, name string) {
	send := func(ev event) bool {
		select {
		case e.events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var cur logCursor
	for drops := 0; ; {
		rc, err := e.openLog(ctx, name, &cur)
		if err != nil {
			send(event{idx: idx, text: redact.Text(err.Error())})
			send(event{idx: idx, gone: true})
			return
		}
		n, ok := readLog(idx, rc, &cur, send)
		rc.Close()
		if !ok || ctx.Err() != nil {
			return
		}
		if drops++; n > 0 {
			drops = 1
		}
		if drops > maxDrops || !e.agentRunning(ctx, name) {
			send(event{idx: idx, gone: true})
			return
		}
		fmt.Fprintf(e.o.Log, "pods: the log stream of pod %s ended while it runs; reopening it\n", name)
		select {
		case <-ctx.Done():
			return
		case <-time.After(reopenWait):
		}
	}
}

// openLog opens the agent's log from the cursor, retrying while the
// container is not yet serving its log.
func (e *Executor) openLog(ctx context.Context, name string, cur *logCursor) (io.ReadCloser, error) {
	path := collection("Pod", e.o.Namespace).Join(name, "log").
		With("follow", "true").With("container", "agent").With("timestamps", "true")
	if since := cur.since(); since != "" {
		path = path.With("sinceTime", since)
	}
	cur.reopen()
	rc, err := e.api.Stream(ctx, path)
	for try := 0; err != nil && try < 20 && ctx.Err() == nil; try++ {
		time.Sleep(300 * time.Millisecond)
		rc, err = e.api.Stream(ctx, path)
	}
	return rc, err
}

// readLog sends the stream's new lines as events until it ends; n counts
// them, ok is false when a send was refused (the follower must stop).
func readLog(idx int, rc io.Reader, cur *logCursor, send func(event) bool) (n int, ok bool) {
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		b, fresh := cur.take(sc.Bytes())
		if !fresh {
			continue
		}
		n++
		l, err := ParseLine(b)
		ev := event{idx: idx, line: l}
		if err != nil {
			ev = event{idx: idx, text: redact.Text(strings.TrimSpace(string(b)))}
			if ev.text == "" {
				continue
			}
		}
		if !send(ev) {
			return n, false
		}
	}
	return n, true
}

// agentRunning says whether the pod's agent container still runs; when
// the pod cannot be read it is given the benefit of the doubt, and the
// reopened stream (or maxDrops) decides.
func (e *Executor) agentRunning(ctx context.Context, name string) bool {
	code, b, err := e.api.Do(ctx, http.MethodGet, collection("Pod", e.o.Namespace).Join(name), "", nil)
	if err != nil || code >= 500 {
		return true
	}
	var p pod
	if code != http.StatusOK || json.Unmarshal(b, &p) != nil {
		return false
	}
	if p.Metadata.DeletionTimestamp != nil || p.Status.Phase != "Running" {
		return false
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Running == nil {
			return false
		}
	}
	return true
}

// logCursor is where a pod's log was read up to: the last line's kubelet
// timestamp and how many lines carried it (a reopened stream starts at
// that second, so it repeats them).
type logCursor struct {
	last   time.Time
	atLast int // lines seen stamped last
	replay int // lines stamped last met in the current stream
}

// since is the sinceTime of a reopened stream: the last line's second
// (the API takes whole seconds), "" before any line.
func (c *logCursor) since() string {
	if c.last.IsZero() {
		return ""
	}
	return c.last.Truncate(time.Second).UTC().Format(time.RFC3339)
}

func (c *logCursor) reopen() { c.replay = 0 }

// take strips the kubelet's timestamp from a line and says whether the
// line is new. A line without a timestamp is passed as it is.
func (c *logCursor) take(line []byte) ([]byte, bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return line, true
	}
	t, err := time.Parse(time.RFC3339Nano, string(line[:sp]))
	if err != nil {
		return line, true
	}
	rest := line[sp+1:]
	switch {
	case t.Before(c.last):
		return rest, false
	case t.Equal(c.last):
		if c.replay++; c.replay <= c.atLast {
			return rest, false
		}
		c.atLast++
		return rest, true
	}
	c.last, c.atLast, c.replay = t, 1, 1
	return rest, true
}
