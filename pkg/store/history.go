package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	// The pure-Go SQLite driver: history needs no cgo.
	_ "modernc.org/sqlite"

	"github.com/authbench/authbench/pkg/results"
)

// HistoryFile is the SQLite index inside a runs directory. It is a cache:
// Reindex rebuilds it from the run directories.
const HistoryFile = "history.db"

// historySchemaVersion is bumped when the tables change; an index of
// another version is rebuilt. Version 2 stores target URLs redacted; a
// version 1 index is scrubbed in place (scrubURLs) rather than dropped,
// so its runs stay listed.
const historySchemaVersion = "2"

// historyMode is the index's permission: it names hosts and runs, and
// older versions held raw target URLs.
const historyMode = 0o600

const historySchema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	dir TEXT NOT NULL,
	start TEXT NOT NULL,
	imported_tool TEXT NOT NULL,
	partial INTEGER NOT NULL,
	host TEXT NOT NULL,
	authbench_version TEXT NOT NULL,
	model TEXT NOT NULL,
	concurrency INTEGER NOT NULL,
	rate REAL NOT NULL,
	seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS targets (
	run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	target TEXT NOT NULL,
	url TEXT NOT NULL,
	iterations INTEGER NOT NULL,
	requests INTEGER NOT NULL,
	successes INTEGER NOT NULL,
	success_rate REAL NOT NULL,
	p50 REAL, p95 REAL, p99 REAL, mean REAL,
	p50_merged REAL, p95_merged REAL, p99_merged REAL,
	throughput REAL NOT NULL,
	throughput_min REAL NOT NULL,
	throughput_max REAL NOT NULL,
	PRIMARY KEY (run_id, target)
);
CREATE INDEX IF NOT EXISTS targets_by_name ON targets(target);
`

// openHistory opens (creating if needed) the index of runsDir.
func openHistory(runsDir string) (*sql.DB, error) {
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return nil, fmt.Errorf("opening history: %w", err)
	}
	path := filepath.Join(runsDir, HistoryFile)
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("opening history: %w", err)
	}
	// secure_delete: a replaced row's bytes are overwritten, not left in
	// a free page.
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=secure_delete(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening history: %w", err)
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening history %s: %w", filepath.Join(runsDir, HistoryFile), err)
	}
	return db, nil
}

// migrate creates the tables, dropping an index of another version (it is
// only a cache of the run directories).
func migrate(db *sql.DB) error {
	var v string
	err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	if err == nil && v == "1" {
		if err := scrubURLs(db); err != nil {
			return fmt.Errorf("redacting target urls: %w", err)
		}
	} else if err == nil && v != historySchemaVersion {
		if _, err := db.Exec(`DROP TABLE IF EXISTS targets; DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS meta;`); err != nil {
			return err
		}
	}
	if _, err := db.Exec(historySchema); err != nil {
		return err
	}
	_, err = db.Exec(`INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)`, historySchemaVersion)
	return err
}

// Index records run (stored in runDir) in the history of runsDir. It is
// idempotent: indexing a run again replaces its rows.
func Index(runsDir, runDir string, run *results.Run) error {
	db, err := openHistory(runsDir)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := indexRun(db, runsDir, runDir, run); err != nil {
		return fmt.Errorf("indexing run %s: %w", runDir, err)
	}
	return nil
}

// runKey is the run's identity in the index: its ID, or its directory
// name for runs without one.
func runKey(runDir string, run *results.Run) string {
	if run.ID != "" {
		return run.ID
	}
	return filepath.Base(Dir(runDir))
}

func indexRun(db *sql.DB, runsDir, runDir string, run *results.Run) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit
	id := runKey(runDir, run)
	if _, err := tx.Exec(`DELETE FROM targets WHERE run_id = ?`, id); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM runs WHERE id = ?`, id); err != nil {
		return err
	}
	tool := ""
	if run.Imported != nil {
		tool = run.Imported.Tool
	}
	l := run.Plan.Load
	_, err = tx.Exec(`INSERT INTO runs(id, name, dir, start, imported_tool, partial, host, authbench_version, model, concurrency, rate, seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs))`,
		id, run.Name, relDir(runsDir, runDir), timeText(run.Start), tool, run.Partial, run.Environment.Host,
		run.AuthbenchVersion, string(l.Model()), l.Concurrency, l.Rate)
	if err != nil {
		return err
	}
	for _, t := range summarizeTargets(runDir, run) {
		_, err := tx.Exec(`INSERT INTO targets(run_id, target, url, iterations, requests, successes, success_rate,
			p50, p95, p99, mean, p50_merged, p95_merged, p99_merged, throughput, throughput_min, throughput_max)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, t.Target, t.URL, t.Iterations, t.Requests, t.Successes, t.SuccessRate,
			t.P50, t.P95, t.P99, t.MeanMs, t.P50Merged, t.P95Merged, t.P99Merged,
			t.Throughput, t.ThroughputMin, t.ThroughputMax)
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

func relDir(runsDir, runDir string) string {
	runDir = Dir(runDir)
	if rel, err := filepath.Rel(runsDir, runDir); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	if abs, err := filepath.Abs(runDir); err == nil {
		return abs
	}
	return runDir
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// Reindex rebuilds the history of runsDir from the run directories in it
// (any directory up to two levels down holding a run.json), dropping runs
// whose directory is gone. It returns how many runs it indexed; a run that
// cannot be read is skipped and reported in the error.
func Reindex(runsDir string) (int, error) {
	db, err := openHistory(runsDir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	dirs, err := runDirs(runsDir)
	if err != nil {
		return 0, err
	}
	var errs []error
	var seen []string
	for _, d := range dirs {
		run, err := Read(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := indexRun(db, runsDir, d, run); err != nil {
			errs = append(errs, fmt.Errorf("indexing run %s: %w", d, err))
			continue
		}
		seen = append(seen, runKey(d, run))
	}
	if err := prune(db, seen); err != nil {
		errs = append(errs, err)
	}
	return len(seen), errors.Join(errs...)
}

// runDirs finds run directories under runsDir, sorted.
func runDirs(runsDir string) ([]string, error) {
	var out []string
	for _, pattern := range []string{"*/" + results.RunFile, "*/*/" + results.RunFile} {
		m, err := filepath.Glob(filepath.Join(runsDir, pattern))
		if err != nil {
			return nil, fmt.Errorf("listing runs: %w", err)
		}
		for _, f := range m {
			out = append(out, filepath.Dir(f))
		}
	}
	slices.Sort(out)
	return out, nil
}

func prune(db *sql.DB, keep []string) error {
	rows, err := db.Query(`SELECT id FROM runs`)
	if err != nil {
		return fmt.Errorf("pruning history: %w", err)
	}
	var gone []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("pruning history: %w", err)
		}
		if !slices.Contains(keep, id) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	for _, id := range gone {
		if _, err := db.Exec(`DELETE FROM targets WHERE run_id = ?; `, id); err != nil {
			return fmt.Errorf("pruning history: %w", err)
		}
		if _, err := db.Exec(`DELETE FROM runs WHERE id = ?`, id); err != nil {
			return fmt.Errorf("pruning history: %w", err)
		}
	}
	return nil
}
