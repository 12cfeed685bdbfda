package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// apiResponse is the Prometheus HTTP API envelope of a range query.
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

// query runs one range query and sums its series per timestamp (ms).
func (s *PrometheusSampler) query(ctx context.Context, q string, start, end time.Time, step time.Duration) (map[int64]float64, error) {
	form := url.Values{
		"query": {q},
		"start": {formatTime(start)},
		"end":   {formatTime(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.api.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if s.o.Token != nil {
		tok, err := s.o.Token.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("getting prometheus token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := s.o.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("querying prometheus: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading prometheus answer: %w", err)
	}
	return parseMatrix(resp.StatusCode, body)
}

func parseMatrix(status int, body []byte) (map[int64]float64, error) {
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
	out := map[int64]float64{}
	for _, series := range r.Data.Result {
		for _, pair := range series.Values {
			ts, ok1 := pair[0].(float64)
			vs, ok2 := pair[1].(string)
			v, err := strconv.ParseFloat(vs, 64)
			if !ok1 || !ok2 || err != nil {
				return nil, fmt.Errorf("prometheus: bad sample %v", pair)
			}
			out[int64(ts*1000+0.5)] += v
		}
	}
	return out, nil
}

func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}
