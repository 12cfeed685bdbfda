package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/store"
)

func TestPublishBadInput(t *testing.T) {
	runs := writeHistory(t, 1, 10, 1, 0)
	t.Setenv("AUTHBENCH_OPENSEARCH_URL", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no server", []string{runs}, "no server"},
		{"credentials in the URL", []string{runs, "--opensearch", "http://u:hunter2@127.0.0.1:9"}, "no credentials in the URL"},
		{"token in the URL's query", []string{runs, "--opensearch", "http://127.0.0.1:9/?access_token=hunter2"}, "want no query"},
		{"two token sources", []string{runs, "--opensearch", "http://127.0.0.1:9", "--opensearch-token-env", "A", "--opensearch-token-file", "/f"}, "give one of"},
		{"no run", []string{}, "requires at least 1 arg"},
		{"server down", []string{runs, "--opensearch", "http://127.0.0.1:1"}, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, ExitError, append([]string{"publish"}, tt.args...)...)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, "hunter2") {
				t.Errorf("stderr quotes the password: %s", r.stderr)
			}
		})
	}
}

func TestWriteHistoryHTML(t *testing.T) {
	runs := writeHistory(t, 20, 10, 1.2, 0)
	r := mustRun(t, ExitOK, "regressions", "--out", runs, "-o", "json")
	if !strings.Contains(r.stdout, `"direction": "regression"`) {
		t.Fatalf("no regression found:\n%s", r.stdout)
	}
	pts, err := loadHistoryPoints(nil, "local", runs, &openSearchFlags{}, storeQuery())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeHistoryHTML(&b, pts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "regression (current)") || !strings.Contains(b.String(), `"marks":[{`) {
		t.Error("page lacks the marked change point")
	}
}

func storeQuery() store.HistoryQuery { return store.HistoryQuery{} }

func TestHistoryCommand(t *testing.T) {
	runs := writeHistory(t, 20, 10, 1.2, 0)
	t.Setenv("AUTHBENCH_OPENSEARCH_URL", "")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"text", nil, ExitOK, []string{"History of api (20 runs)", "Trend"}},
		{"html marks the change point", []string{"-o", "html"}, ExitOK, []string{"<html", "regression (current)", `"marks":[{`}},
		{"bad format", []string{"-o", "yaml"}, ExitError, nil},
		{"json", []string{"-o", "json"}, ExitOK, []string{`"runs": [`, `"run_name": "nightly"`}},
		{"bad source", []string{"--source", "s3"}, ExitError, nil},
		{"opensearch without a server", []string{"--source", "opensearch"}, ExitError, nil},
		{"reindex is local", []string{"--source", "opensearch", "--reindex"}, ExitError, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, tt.code, append([]string{"history", "--out", runs}, tt.args...)...)
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%.2000s", w, r.stdout)
				}
			}
			if tt.code != ExitOK && r.stderr == "" {
				t.Error("no message on stderr")
			}
		})
	}
}
