package publish

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// Query selects documents; zero fields select everything.
type Query struct {
	// Target keeps only this target; RunName only runs of this name;
	// RunID only this run.
	Target, RunName, RunID string
	// Since and Until bound the run start (inclusive).
	Since, Until time.Time
}

// searchPage is how many documents one search request returns.
const searchPage = 500

func (q Query) body(after []any) map[string]any {
	var filter []any
	term := func(field, v string) {
		if v != "" {
			filter = append(filter, map[string]any{"term": map[string]any{field: v}})
		}
	}
	term("target", q.Target)
	term("run_name", q.RunName)
	term("run_id", q.RunID)
	if !q.Since.IsZero() || !q.Until.IsZero() {
		r := map[string]any{}
		if !q.Since.IsZero() {
			r["gte"] = q.Since.UTC().Format(time.RFC3339Nano)
		}
		if !q.Until.IsZero() {
			r["lte"] = q.Until.UTC().Format(time.RFC3339Nano)
		}
		filter = append(filter, map[string]any{"range": map[string]any{"run_start": r}})
	}
	b := map[string]any{
		"size":  searchPage,
		"query": map[string]any{"bool": map[string]any{"filter": filter}},
		"sort":  []any{map[string]any{"run_start": "asc"}, map[string]any{"doc_id": "asc"}},
	}
	if after != nil {
		b["search_after"] = after
	}
	return b
}

// Search returns the documents q selects, oldest run first, then by
// target and iteration. A missing index is an empty history.
func (c *Client) Search(ctx context.Context, q Query) ([]Document, error) {
	path := c.Index() + "/_search"
	var out []Document
	var after []any
	for {
		var ans struct {
			Hits struct {
				Hits []struct {
					Source Document `json:"_source"`
					Sort   []any    `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		req, err := json.Marshal(q.body(after))
		if err != nil {
			return nil, err
		}
		status, body, err := c.do(ctx, http.MethodPost, path, req, "application/json")
		if err != nil {
			return nil, err
		}
		if status == http.StatusNotFound {
			return nil, nil
		}
		if status/100 != 2 {
			return nil, statusError("POST", path, status, body)
		}
		if err := json.Unmarshal(body, &ans); err != nil {
			return nil, statusError("POST", path, status, body)
		}
		for _, h := range ans.Hits.Hits {
			out = append(out, h.Source)
		}
		if len(ans.Hits.Hits) < searchPage {
			break
		}
		after = ans.Hits.Hits[len(ans.Hits.Hits)-1].Sort
	}
	sortDocuments(out)
	return out, nil
}

func sortDocuments(docs []Document) {
	slices.SortStableFunc(docs, func(a, b Document) int {
		if c := a.RunStart.Compare(b.RunStart); c != 0 {
			return c
		}
		if a.RunID != b.RunID {
			return compareStrings(a.RunID, b.RunID)
		}
		if a.Target != b.Target {
			return compareStrings(a.Target, b.Target)
		}
		return a.Iteration - b.Iteration
	})
}

func compareStrings(a, b string) int {
	if a < b {
		return -1
	}
	return 1
}
