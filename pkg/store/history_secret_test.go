package store

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretURL carries a password, a query token and a fragment token.
const secretURL = "http://alice:S3CRET-pw@127.0.0.1:8080/api?x=1&access_token=S3CRET-qt#id_token=S3CRET-ft"

// assertNoSecretInIndex greps every file of the runs directory's index
// (the database and anything SQLite left beside it) and what History
// returns for "S3CRET", and checks the index is 0600.
func assertNoSecretInIndex(t *testing.T, runs string) {
	t.Helper()
	rows, err := History(runs, HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no history rows: the search proves nothing")
	}
	for _, r := range rows {
		if strings.Contains(r.URL, "S3CRET") || !strings.Contains(r.URL, "REDACTED") {
			t.Errorf("history row url %q: want it redacted", r.URL)
		}
	}
	files, _ := filepath.Glob(filepath.Join(runs, HistoryFile+"*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("S3CRET")) {
			t.Errorf("%s holds a secret", f)
		}
	}
	fi, err := os.Stat(filepath.Join(runs, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", HistoryFile, fi.Mode().Perm())
	}
}

// TestHistoryStoresRedactedURL: a run whose target URL holds secrets is
// indexed with the URL redacted.
func TestHistoryStoresRedactedURL(t *testing.T) {
	runs := t.TempDir()
	run := histRun("r1", "secret", "api", nov17, []float64{10}, []float64{20}, []float64{100})
	run.Plan.Targets[0].URL = secretURL
	if err := Index(runs, writeRun(t, runs, run), run); err != nil {
		t.Fatal(err)
	}
	assertNoSecretInIndex(t, runs)
}

// TestHistoryScrubsOldIndex: an index written by a version that stored
// raw URLs, readable to all, is scrubbed and narrowed when opened.
func TestHistoryScrubsOldIndex(t *testing.T) {
	runs := t.TempDir()
	path := filepath.Join(runs, HistoryFile)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{historySchema,
		`INSERT INTO meta(key, value) VALUES ('schema', '1')`,
		`INSERT INTO runs VALUES ('r1', 'old', 'x', '2025-11-17T09:30:00Z', '', 0, 'h', 'v', 'closed', 1, 0, 1)`,
		`INSERT INTO targets(run_id, target, url, iterations, requests, successes, success_rate, throughput, throughput_min, throughput_max)
			VALUES ('r1', 'api', '` + secretURL + `', 1, 10, 10, 1, 5, 5, 5)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte("S3CRET-pw")) {
		t.Fatal("the old index does not hold the raw URL: the test proves nothing")
	}
	assertNoSecretInIndex(t, runs)
}
