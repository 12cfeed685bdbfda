package observe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/auth"
)

// The API server's request metrics a MetricsReviews reads.
const (
	metricRequests        = "apiserver_request_total"
	metricRequestSeconds  = "apiserver_request_duration_seconds_sum"
	maxMetricsLine        = 1 << 20
	metricsRequestTimeout = 10 * time.Second
)

// MetricsReviews counts reviews from the API server's /metrics:
// apiserver_request_total and apiserver_request_duration_seconds_sum for
// creates of tokenreviews and subjectaccessreviews. It cannot tell callers
// apart; it needs a token allowed to get /metrics (nonResourceURLs, e.g.
// cluster-admin or the system:monitoring role).
type MetricsReviews struct {
	// URL is the API server's base URL, e.g. https://127.0.0.1:6443.
	URL string
	// Token is sent as a bearer token. Default: none.
	Token auth.TokenSource
	// Client sends the request; give it the API server's CA. Default:
	// a client refusing redirects (the token would follow them), with a
	// 10 s timeout per read.
	Client *http.Client
}

// metricsClient is MetricsReviews' default client.
var metricsClient = httpclient.New(nil, 0)

// Source is ReviewSourceMetrics.
func (m *MetricsReviews) Source() string { return ReviewSourceMetrics }

// Read scrapes /metrics once.
func (m *MetricsReviews) Read(ctx context.Context) (ReviewTally, error) {
	ctx, cancel := context.WithTimeout(ctx, metricsRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(m.URL, "/")+"/metrics", nil)
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	if m.Token != nil {
		tok, err := m.Token.Token(ctx)
		if err != nil {
			return ReviewTally{}, fmt.Errorf("reading the API server's metrics: getting token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	c := m.Client
	if c == nil {
		c = metricsClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ReviewTally{}, fmt.Errorf("reading the API server's metrics: %s answered %s", req.URL.Redacted(), resp.Status)
	}
	by, err := parseReviewMetrics(resp.Body)
	if err != nil {
		return ReviewTally{}, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return ReviewTally{Time: time.Now(), By: by}, nil
}

// parseReviewMetrics sums, from a Prometheus text exposition, the request
// counts and seconds of creates of the review resources (over response
// codes and API versions). Other lines are skipped unparsed; a review line
// that does not parse is an error naming its line.
func parseReviewMetrics(r io.Reader) (map[ReviewKey]ReviewCount, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxMetricsLine)
	by := map[ReviewKey]ReviewCount{}
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		count := strings.HasPrefix(text, metricRequests+"{")
		secs := strings.HasPrefix(text, metricRequestSeconds+"{")
		if !count && !secs {
			continue
		}
		s, err := parseSample(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		res := s.labels["resource"]
		if (res != ResourceTokenReviews && res != ResourceSARs) || !isCreate(s.labels["verb"]) || s.labels["subresource"] != "" {
			continue
		}
		k := ReviewKey{Resource: res}
		c := by[k]
		if count {
			c.N += s.value
		} else {
			c.Seconds += s.value
		}
		by[k] = c
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return by, nil
}

// isCreate: apiserver_request_total names verbs as the HTTP method
// (POST), some exporters as the Kubernetes verb (create).
func isCreate(verb string) bool { return verb == "POST" || verb == "create" }

// promSample is one line of the text exposition format.
type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSample parses `name{label="value",...} value [timestamp]`.
func parseSample(line string) (promSample, error) {
	s := promSample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, errors.New("no metric name")
	}
	s.name, line = line[:i], line[i:]
	if line[0] == '{' {
		rest, err := parseLabels(line[1:], s.labels)
		if err != nil {
			return s, err
		}
		line = rest
	}
	fields := strings.Fields(line)
	if len(fields) < 1 || len(fields) > 2 {
		return s, fmt.Errorf("metric %s: want a value and an optional timestamp", s.name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("metric %s: bad value %q", s.name, fields[0])
	}
	s.value = v
	return s, nil
}

// parseLabels reads `a="x",b="y"}` into into and returns what follows the
// closing brace. Values use the exposition format's escapes: \\ \" \n.
func parseLabels(in string, into map[string]string) (string, error) {
	for {
		in = strings.TrimLeft(in, " ")
		if strings.HasPrefix(in, "}") {
			return in[1:], nil
		}
		eq := strings.IndexByte(in, '=')
		if eq <= 0 || eq+1 >= len(in) || in[eq+1] != '"' {
			return "", errors.New("bad label: want name=\"value\"")
		}
		name := strings.TrimSpace(in[:eq])
		val, n, err := unescapeLabel(in[eq+2:])
		if err != nil {
			return "", fmt.Errorf("label %s: %w", name, err)
		}
		into[name] = val
		in = strings.TrimLeft(in[eq+2+n:], " ")
		in = strings.TrimPrefix(in, ",")
	}
}

// unescapeLabel reads a label value up to its closing quote and returns it
// and the bytes consumed, the quote included.
func unescapeLabel(in string) (string, int, error) {
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		switch c := in[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 == len(in) {
				return "", 0, errors.New("unterminated value")
			}
			i++
			switch in[i] {
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(in[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(in[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated value")
}
