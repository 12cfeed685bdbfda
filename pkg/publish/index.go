package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// templateBody is the composable index template (the same API in
// OpenSearch 2.x and Elasticsearch 8.x). Strings are keywords, so that
// runs filter and aggregate by name, target, host and fingerprint; the
// plan, findings' prose and histograms are kept but not indexed.
func templateBody(index string) map[string]any {
	kw := map[string]any{"type": "keyword"}
	num := map[string]any{"type": "double"}
	long := map[string]any{"type": "long"}
	date := map[string]any{"type": "date"}
	stored := map[string]any{"type": "object", "enabled": false}
	latency := map[string]any{"properties": map[string]any{
		"min": num, "mean": num, "stddev": num, "p50": num, "p75": num, "p90": num,
		"p95": num, "p99": num, "p999": num, "p9999": num, "max": num}}
	return map[string]any{
		"index_patterns": []string{index},
		"priority":       100,
		"template": map[string]any{
			"mappings": map[string]any{
				"dynamic_templates": []any{
					map[string]any{"strings": map[string]any{"match_mapping_type": "string", "mapping": kw}},
					map[string]any{"numbers": map[string]any{"match_mapping_type": "long", "mapping": long}},
				},
				"properties": map[string]any{
					"doc_id": kw, "@timestamp": date, "run_id": kw, "run_name": kw, "run_start": date, "run_end": date,
					"authbench_version": kw, "partial": map[string]any{"type": "boolean"}, "imported_from": kw,
					"kind": kw, "capacity": map[string]any{"properties": map[string]any{
						"offered_rps": num, "step_pass": map[string]any{"type": "boolean"}, "capacity_rps": num,
						"first_fail_rps": num, "sustained_rps": num, "slo": stored}},
					"target": kw, "url": kw, "iteration": map[string]any{"type": "integer"},
					"iterations": map[string]any{"type": "integer"}, "layers": kw,
					"model": kw, "concurrency": map[string]any{"type": "integer"}, "rate": num,
					"plan": stored, "lab_stacks": kw, "slo_pass": map[string]any{"type": "boolean"},
					"findings": map[string]any{"properties": map[string]any{
						"kind": kw, "severity": kw, "target": kw, "component": kw,
						"evidence": map[string]any{"type": "text"}, "advice": map[string]any{"type": "text"},
						"values": stored}},
					"figures": map[string]any{"properties": map[string]any{
						"requests": long, "successes": long, "success_rate": num, "throughput_rps": num,
						"goodput_rps": num, "duration_s": num, "latency_ms": latency,
						"status": map[string]any{"type": "object"}, "errors": map[string]any{"type": "object"}}},
					"histogram":              map[string]any{"type": "binary"},
					"histogram_units_per_ms": num,
				},
			},
		},
	}
}

// templateName is the index template's name for an index.
func templateName(index string) string { return index + "-template" }

// EnsureTemplate creates the index template unless one of its name
// exists; created says which. An existing template is left as it is (a
// team may have tuned its shards or retention).
func (c *Client) EnsureTemplate(ctx context.Context) (created bool, err error) {
	path := "_index_template/" + templateName(c.Index())
	status, body, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return false, err
	}
	switch {
	case status == http.StatusOK:
		return false, nil
	case status != http.StatusNotFound:
		return false, statusError("GET", path, status, body)
	}
	if err := c.doJSON(ctx, http.MethodPut, path, templateBody(c.Index()), nil); err != nil {
		return false, fmt.Errorf("creating index template: %w", err)
	}
	return true, nil
}

// BulkResult counts what a bulk request did.
type BulkResult struct {
	// Created documents were new; Existing ones were already indexed
	// (same id) and left untouched.
	Created, Existing int
}

// Bulk indexes docs with "create" actions: a document whose id exists is
// left as it is, so publishing a run twice changes nothing. The index is
// refreshed before the call returns, so a search right after sees them.
func (c *Client) Bulk(ctx context.Context, docs []Document) (BulkResult, error) {
	var res BulkResult
	if len(docs) == 0 {
		return res, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, d := range docs {
		action := map[string]any{"create": map[string]any{"_index": c.Index(), "_id": d.ID}}
		if err := enc.Encode(action); err != nil {
			return res, err
		}
		if err := enc.Encode(d); err != nil {
			return res, fmt.Errorf("encoding document %s/%s iteration %d: %w", d.RunID, d.Target, d.Iteration, err)
		}
	}
	const path = "_bulk?refresh=wait_for"
	status, body, err := c.do(ctx, http.MethodPost, path, buf.Bytes(), "application/x-ndjson")
	if err != nil {
		return res, err
	}
	if status/100 != 2 {
		return res, statusError("POST", "_bulk", status, body)
	}
	return countBulk(body)
}

// countBulk reads a bulk answer: 201 created, 409 already there, any
// other item status an error naming the first failure.
func countBulk(body []byte) (BulkResult, error) {
	var res BulkResult
	var ans struct {
		Items []map[string]struct {
			ID     string `json:"_id"`
			Status int    `json:"status"`
			Error  *struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return res, fmt.Errorf("opensearch _bulk: decoding answer: %w", err)
	}
	var failed []string
	for _, item := range ans.Items {
		for _, it := range item {
			switch {
			case it.Status == http.StatusCreated || it.Status == http.StatusOK:
				res.Created++
			case it.Status == http.StatusConflict:
				res.Existing++
			default:
				why := fmt.Sprintf("status %d", it.Status)
				if it.Error != nil {
					why = it.Error.Type + ": " + it.Error.Reason
				}
				failed = append(failed, fmt.Sprintf("document %s: %s", it.ID, why))
			}
		}
	}
	if len(failed) > 0 {
		return res, fmt.Errorf("opensearch _bulk: %d of %d documents failed: %s", len(failed), len(ans.Items), strings.Join(failed[:min(3, len(failed))], "; "))
	}
	return res, nil
}
