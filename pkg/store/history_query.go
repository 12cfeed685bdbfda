package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
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

// HistoryRow is one target of one run (results.HistoryRow, where
// analysis reads it without reading files).
type HistoryRow = results.HistoryRow

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
	r.URL = redact.URL(r.URL) // an index written before URLs were redacted
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
