package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// AuditReviews counts reviews from the API server's JSON audit log
// (--audit-log-path with a policy that logs tokenreviews and
// subjectaccessreviews at level Metadata or above). Unlike /metrics it names
// the caller of every review, so the reviews of two proxies in one chain
// are told apart. It reads the log incrementally: each Read parses only
// what was appended since the last.
type AuditReviews struct {
	// Path is the audit log file.
	Path string

	mu     sync.Mutex
	offset int64
	ino    os.FileInfo
	by     map[ReviewKey]ReviewCount
}

// NewAuditReviews counts from the audit log at path. Counts are cumulative
// from the log's start: the first Read parses the whole file.
func NewAuditReviews(path string) *AuditReviews {
	return &AuditReviews{Path: path, by: map[ReviewKey]ReviewCount{}}
}

// Source is ReviewSourceAudit.
func (a *AuditReviews) Source() string { return ReviewSourceAudit }

// Read parses the log's new complete lines and returns the running counts.
// A log that was rotated (replaced, or shorter than already read) is read
// from its start; the events between the last Read and the rotation that
// went into the backup are lost, and the counts then read low.
func (a *AuditReviews) Read(ctx context.Context) (ReviewTally, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by == nil {
		a.by = map[ReviewKey]ReviewCount{}
	}
	f, err := os.Open(a.Path)
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's audit log: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's audit log: %w", err)
	}
	if a.ino != nil && (!os.SameFile(a.ino, info) || info.Size() < a.offset) {
		a.offset = 0
	}
	a.ino = info
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's audit log: %w", err)
	}
	n, err := a.consume(ctx, f)
	a.offset += n
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's audit log %s: %w", a.Path, err)
	}
	by := make(map[ReviewKey]ReviewCount, len(a.by))
	for k, v := range a.by {
		by[k] = v
	}
	return ReviewTally{Time: time.Now(), By: by}, nil
}

// consume counts the complete lines in r and returns the bytes they took;
// a trailing partial line (being written) is left for the next Read.
func (a *AuditReviews) consume(ctx context.Context, r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var used int64
	var pending []byte
	for {
		if err := ctx.Err(); err != nil {
			return used, err
		}
		n, err := r.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			if k, c, ok := parseAuditLine(pending[:i]); ok {
				cur := a.by[k]
				a.by[k] = ReviewCount{N: cur.N + c.N, Seconds: cur.Seconds + c.Seconds}
			}
			used += int64(i + 1)
			pending = pending[i+1:]
		}
		if errors.Is(err, io.EOF) {
			return used, nil
		}
		if err != nil {
			return used, err
		}
	}
}

// auditEvent is the part of an audit.k8s.io/v1 Event a count needs.
type auditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	Received time.Time `json:"requestReceivedTimestamp"`
	Stamp    time.Time `json:"stageTimestamp"`
}

// parseAuditLine reads one audit event and reports whether it is a
// completed create of a review, with its caller and its duration. Lines
// that are not JSON events are skipped, not errors: the log belongs to the
// API server and may hold other events.
func parseAuditLine(line []byte) (ReviewKey, ReviewCount, bool) {
	if !bytes.Contains(line, []byte("reviews")) {
		return ReviewKey{}, ReviewCount{}, false // cheap skip of unrelated events
	}
	var ev auditEvent
	if json.Unmarshal(line, &ev) != nil || ev.ObjectRef == nil || ev.Stage != "ResponseComplete" || ev.Verb != "create" {
		return ReviewKey{}, ReviewCount{}, false
	}
	res := ev.ObjectRef.Resource
	if (res != ResourceTokenReviews && res != ResourceSARs) || ev.ObjectRef.Subresource != "" {
		return ReviewKey{}, ReviewCount{}, false
	}
	secs := 0.0
	if !ev.Received.IsZero() && ev.Stamp.After(ev.Received) {
		secs = ev.Stamp.Sub(ev.Received).Seconds()
	}
	return ReviewKey{Caller: ev.User.Username, Resource: res}, ReviewCount{N: 1, Seconds: secs}, true
}
