package kubeapi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// URLPath is a path of the Kubernetes API built from segments, each
// escaped on its own, plus a query: a namespace or name can never add a
// segment, climb with "..", or start a query.
type URLPath struct {
	segments []string
	query    url.Values
}

// Path builds a path from its segments, e.g.
// Path("api", "v1", "namespaces", ns, "configmaps", name).
func Path(segments ...string) URLPath {
	return URLPath{segments: append([]string(nil), segments...)}
}

// Join returns p with more segments at its end.
func (p URLPath) Join(segments ...string) URLPath {
	return URLPath{segments: append(append([]string(nil), p.segments...), segments...), query: p.query}
}

// With returns p with the query parameter key set to value.
func (p URLPath) With(key, value string) URLPath {
	q := url.Values{}
	for k, v := range p.query {
		q[k] = append([]string(nil), v...)
	}
	q.Set(key, value)
	return URLPath{segments: p.segments, query: q}
}

// Segments are p's segments, unescaped.
func (p URLPath) Segments() []string { return append([]string(nil), p.segments...) }

// Validate refuses an empty path and a segment that is empty, "." or "..":
// escaping keeps a segment from adding others, not from climbing.
func (p URLPath) Validate() error {
	if len(p.segments) == 0 {
		return errors.New("an empty API path")
	}
	for i, s := range p.segments {
		if s == "" || s == "." || s == ".." {
			return fmt.Errorf("API path %s: segment %d is %q", p, i+1, s)
		}
	}
	return nil
}

// String is the escaped path and query, e.g. "/api/v1/namespaces/a%2Fb".
func (p URLPath) String() string {
	var b strings.Builder
	for _, s := range p.segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	if len(p.query) > 0 {
		b.WriteByte('?')
		b.WriteString(p.query.Encode())
	}
	return b.String()
}
