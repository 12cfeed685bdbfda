package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// apiResponse is the Prometheus HTTP API envelope of a matrix: a range
// query's answer, or an instant query's of a range vector.
type apiResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// sample is one value of one series at the time Prometheus stamped it.
type sample struct {
	t time.Time
	v float64
}

// query runs one range query and sums its series per timestamp (ms).
func (s *PrometheusSampler) query(ctx context.Context, q string, start, end time.Time, step time.Duration) (map[int64]float64, error) {
	status, body, err := s.post(ctx, "api/v1/query_range", url.Values{
		"query": {q},
		"start": {formatTime(start)},
		"end":   {formatTime(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
	if err != nil {
		return nil, err
	}
	return parseMatrix(status, body)
}

// rawSamples runs an instant query of a range vector (selector[rng] at
// time at), which answers with every stored sample and its scrape time.
func (s *PrometheusSampler) rawSamples(ctx context.Context, selector string, at time.Time, rng time.Duration) ([][]sample, error) {
	status, body, err := s.post(ctx, "api/v1/query", url.Values{
		"query": {fmt.Sprintf("%s[%dms]", selector, rng.Milliseconds())},
		"time":  {formatTime(at)},
	})
	if err != nil {
		return nil, err
	}
	return decodeMatrix(status, body)
}

// post sends one API request and returns the answer's status and body.
func (s *PrometheusSampler) post(ctx context.Context, path string, form url.Values) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base.JoinPath(path).String(), strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if s.o.Token != nil {
		tok, err := s.o.Token.Token(ctx)
		if err != nil {
			return 0, nil, fmt.Errorf("getting prometheus token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := s.o.Client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("querying prometheus: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("reading prometheus answer: %w", err)
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if s.o.Token == nil {
			return 0, nil, fmt.Errorf("prometheus answered HTTP 401: it needs a bearer token (prometheus.token, e.g. {command: oc whoami -t})")
		}
		return 0, nil, fmt.Errorf("prometheus answered HTTP 401: it refused the %s token", s.o.Token.Kind())
	case http.StatusForbidden:
		return 0, nil, fmt.Errorf("prometheus answered HTTP 403: the token may not query it (on OpenShift: cluster-monitoring-view)")
	}
	return resp.StatusCode, body, nil
}

// parseMatrix sums a matrix's series per timestamp (ms).
func parseMatrix(status int, body []byte) (map[int64]float64, error) {
	series, err := decodeMatrix(status, body)
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	for _, ss := range series {
		for _, x := range ss {
			out[x.t.UnixMilli()] += x.v
		}
	}
	return out, nil
}

// decodeMatrix returns a matrix's series, each in time order.
func decodeMatrix(status int, body []byte) ([][]sample, error) {
	var r apiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("prometheus answered HTTP %d, not its API's JSON: %.200s", status, body)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("prometheus: %s: %s", r.ErrorType, r.Error)
	}
	if r.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("prometheus: result type %q, want matrix", r.Data.ResultType)
	}
	out := make([][]sample, 0, len(r.Data.Result))
	for _, series := range r.Data.Result {
		ss := make([]sample, 0, len(series.Values))
		for _, pair := range series.Values {
			ts, ok1 := pair[0].(float64)
			vs, ok2 := pair[1].(string)
			v, err := strconv.ParseFloat(vs, 64)
			if !ok1 || !ok2 || err != nil {
				return nil, fmt.Errorf("prometheus: bad sample %v", pair)
			}
			ss = append(ss, sample{time.UnixMilli(int64(math.Round(ts * 1000))), v})
		}
		out = append(out, ss)
	}
	return out, nil
}

func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}
