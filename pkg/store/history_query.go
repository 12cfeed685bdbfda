package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HistoryQuery selects history rows. Zero fields select everything.
type HistoryQuery struct {
	// Target keeps only this target name.
	Target string
	// Run keeps only runs with this name.
	Run string
	// Since and Until bound the run start time (inclusive). Runs of
	// unknown date (imported without one) are kept only when both are zero.
	Since, Until time.Time
	// Limit keeps the most recent Limit rows (0: all).
	Limit int
}

// HistoryRow is one target of one run. Latencies are in milliseconds;
// nil means not measured (e.g. wrk gives no P95; imported runs have no
// histogram, hence no merged figures).
type HistoryRow struct {
	RunID   string `json:"run_id"`
	RunName string `json:"run_name"`
	// Dir is the run directory, relative to the runs directory when inside it.
	Dir string `json:"dir"`
	// Start is the run start; zero when unknown.
	Start time.Time `json:"start"`
	// Imported is true for runs converted from another tool, named by Tool.
	Imported    bool    `json:"imported"`
	Tool        string  `json:"tool,omitempty"`
	Partial     bool    `json:"partial,omitempty"`
	Host        string  `json:"host,omitempty"`
	Model       string  `json:"model"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`
	Target      string  `json:"target"`
	URL         string  `json:"url,omitempty"`
	Iterations  int     `json:"iterations"`
	Requests    int64   `json:"requests"`
	Successes   int64   `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	// P50, P95, P99 and MeanMs are the mean over iterations.
	P50    *float64 `json:"p50_ms"`
	P95    *float64 `json:"p95_ms"`
	P99    *float64 `json:"p99_ms"`
	MeanMs *float64 `json:"mean_ms"`
	// The merged-histogram percentiles over all iterations.
	P50Merged *float64 `json:"p50_merged_ms,omitempty"`
	P95Merged *float64 `json:"p95_merged_ms,omitempty"`
	P99Merged *float64 `json:"p99_merged_ms,omitempty"`
	// Throughput is the mean over iterations, in requests per second.
	Throughput    float64 `json:"throughput_rps"`
	ThroughputMin float64 `json:"throughput_min_rps"`
	ThroughputMax float64 `json:"throughput_max_rps"`
}

// History lists the indexed runs, oldest first (runs of unknown date in
// the order they were indexed, after dated ones). A runs directory whose
// index was deleted is reindexed first, so history survives losing it.
func History(runsDir string, q HistoryQuery) ([]HistoryRow, error) {
	if _, err := os.Stat(filepath.Join(runsDir, HistoryFile)); os.IsNotExist(err) {
		if _, err := Reindex(runsDir); err != nil {
			return nil, fmt.Errorf("rebuilding history: %w", err)
		}
	}
	db, err := openHistory(runsDir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	query, args := historySQL(q)
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading history: %w", err)
	}
	defer rows.Close()
	var out []HistoryRow
	for rows.Next() {
		r, err := scanHistory(rows)
		if err != nil {
			return nil, fmt.Errorf("reading history: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading history: %w", err)
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	return out, nil
}

func historySQL(q HistoryQuery) (string, []any) {
	var where []string
	var args []any
	if q.Target != "" {
		where = append(where, "t.target = ?")
		args = append(args, q.Target)
	}
	if q.Run != "" {
		where = append(where, "r.name = ?")
		args = append(args, q.Run)
	}
	if !q.Since.IsZero() {
		where = append(where, "r.start != '' AND r.start >= ?")
		args = append(args, timeText(q.Since))
	}
	if !q.Until.IsZero() {
		where = append(where, "r.start != '' AND r.start <= ?")
		args = append(args, timeText(q.Until))
	}
	s := `SELECT r.id, r.name, r.dir, r.start, r.imported_tool, r.partial, r.host, r.model, r.concurrency, r.rate,
		t.target, t.url, t.iterations, t.requests, t.successes, t.success_rate,
		t.p50, t.p95, t.p99, t.mean, t.p50_merged, t.p95_merged, t.p99_merged,
		t.throughput, t.throughput_min, t.throughput_max
		FROM targets t JOIN runs r ON r.id = t.run_id`
	if len(where) > 0 {
		s += " WHERE " + strings.Join(where, " AND ")
	}
	// RFC 3339 UTC text sorts chronologically; undated runs go last.
	s += " ORDER BY r.start = '', r.start, r.seq, t.target"
	return s, args
}

func scanHistory(rows *sql.Rows) (HistoryRow, error) {
	var r HistoryRow
	var start, tool string
	var p50, p95, p99, mean, m50, m95, m99 sql.NullFloat64
	err := rows.Scan(&r.RunID, &r.RunName, &r.Dir, &start, &tool, &r.Partial, &r.Host, &r.Model, &r.Concurrency, &r.Rate,
		&r.Target, &r.URL, &r.Iterations, &r.Requests, &r.Successes, &r.SuccessRate,
		&p50, &p95, &p99, &mean, &m50, &m95, &m99,
		&r.Throughput, &r.ThroughputMin, &r.ThroughputMax)
	if err != nil {
		return r, err
	}
	if start != "" {
		if r.Start, err = time.Parse(time.RFC3339Nano, start); err != nil {
			return r, fmt.Errorf("run %s: bad start %q: %w", r.RunID, start, err)
		}
	}
	r.Tool, r.Imported = tool, tool != ""
	r.P50, r.P95, r.P99, r.MeanMs = ptr(p50), ptr(p95), ptr(p99), ptr(mean)
	r.P50Merged, r.P95Merged, r.P99Merged = ptr(m50), ptr(m95), ptr(m99)
	return r, nil
}

func ptr(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	return &v.Float64
}
