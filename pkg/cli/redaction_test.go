package cli

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// TestTokenRedaction runs each way of giving a credential with a
// distinctive secret, checks the server received it on every request, and
// then searches every file written under --out (run.json, timeline.json,
// summary.md, the .hlog, history.db, report.html), everything printed by
// run and report, for the secret. It must be nowhere.
func TestTokenRedaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		// args gives the credential; dir is a directory outside --out for
		// the files that hold the secret.
		args   func(t *testing.T, dir, secret string) []string
		header string // what the server must receive, with %s for the secret
		output string
	}{
		{"--token", "tkStatic-Q7f3LmZ9xW2", func(t *testing.T, _, s string) []string {
			return []string{"--token", s}
		}, "Authorization: Bearer %s", "text"},
		{"--token-env", "tkEnv-Hb8pR4vN1sKd", func(t *testing.T, _, s string) []string {
			// A unique name instead of t.Setenv, which parallel tests may not use.
			const name = "AUTHBENCH_CLI_TEST_TOKEN"
			os.Setenv(name, s)
			t.Cleanup(func() { os.Unsetenv(name) })
			return []string{"--token-env", name}
		}, "Authorization: Bearer %s", "json"},
		{"--token-file", "tkFile-Zc5yT0aJ6gUe", func(t *testing.T, dir, s string) []string {
			return []string{"--token-file", writeFile(t, dir, "token", s+"\n")}
		}, "Authorization: Bearer %s", "text"},
		{"--token-command", "tkCmd-Wm2qX8dF4rPo", func(t *testing.T, dir, s string) []string {
			// The command must not spell the secret: its output does.
			return []string{"--token-command", "cat " + writeFile(t, dir, "cmd-token", s)}
		}, "Authorization: Bearer %s", "text"},
		{"-H Authorization", "hdrAuth-Kx9vB3nM7tYq", func(t *testing.T, _, s string) []string {
			return []string{"-H", "Authorization: Bearer " + s}
		}, "Authorization: Bearer %s", "json"},
		{"-H Cookie", "hdrCookie-Pj4wE1sG8hLa", func(t *testing.T, _, s string) []string {
			return []string{"-H", "Cookie: s=" + s}
		}, "Cookie: s=%s", "text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, value, _ := strings.Cut(strings.Replace(tc.header, "%s", tc.secret, 1), ": ")
			var good, bad atomic.Int64
			srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get(name) != value {
					bad.Add(1)
					http.Error(w, "no credential", http.StatusUnauthorized)
					return
				}
				good.Add(1)
				_, _ = w.Write([]byte("authenticated\n"))
			})
			out := filepath.Join(t.TempDir(), "runs")
			args := append([]string{"run", "-n", "20", "-c", "2", "--name", "redact", "--output", tc.output, "--out", out},
				tc.args(t, t.TempDir(), tc.secret)...)
			var printed strings.Builder
			r := mustRun(t, ExitOK, append(args, srv.URL+"/private")...)
			printed.WriteString(r.stdout + r.stderr)
			if tc.name == "--token" && !strings.Contains(r.stderr, "process list") {
				t.Errorf("--token gave no warning that it shows in the process list:\n%s", r.stderr)
			}

			dir := runDir(t, out)
			run, _ := readRun(t, dir)
			if good.Load() != 21 || bad.Load() != 0 || run.Results[0].Status["200"] != 20 {
				t.Errorf("server saw the credential on %d requests and not on %d; run.json status %v: want 20 + the probe, all authenticated",
					good.Load(), bad.Load(), run.Results[0].Status)
			}
			for _, report := range [][]string{
				{"report", dir, "-o", "html", "--output-file", "-"},
				{"report", dir, "-o", "html"},
				{"report", dir},
				{"report", dir, "--output-file", "-"},
				{"history", "--out", out},
			} {
				r := mustRun(t, ExitOK, report...)
				printed.WriteString(r.stdout + r.stderr)
				if report[len(report)-1] == "-" && !strings.Contains(r.stdout, "redact") {
					t.Errorf("authbench %s printed no report:\n%s", strings.Join(report, " "), r.stdout)
				}
			}

			if s := printed.String(); strings.Contains(s, tc.secret) {
				i := strings.Index(s, tc.secret)
				t.Errorf("the secret was printed: ...%s...", s[max(0, i-200):min(len(s), i+len(tc.secret)+50)])
			}
			files := searchTree(t, out, tc.secret)
			for _, want := range []string{results.RunFile, results.TimelineFile, results.SummaryFile, "report.html", ".hlog", "history.db"} {
				if !strings.Contains(strings.Join(files, " "), want) {
					t.Errorf("searched %v: no %s was written, so the search proves nothing about it", files, want)
				}
			}
			if tc.name[0] == '-' && tc.name[1] == 'H' {
				b, _ := os.ReadFile(filepath.Join(dir, results.RunFile))
				if !bytes.Contains(b, []byte("redacted")) {
					t.Errorf("run.json does not record the %s header redacted", name)
				}
			}
		})
	}
}

// searchTree fails the test for every file under root holding secret, and
// returns the names of the files it searched.
func searchTree(t *testing.T, root, secret string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		names = append(names, d.Name())
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestErrorMessagesRedacted: the message of a failed command passes through
// the one redaction, whatever the layer below quoted.
func TestErrorMessagesRedacted(t *testing.T) {
	for _, tt := range []struct{ name, url string }{
		{"URL password in a refused scheme", "ftp://u:hunter2secret@127.0.0.1/"},
		{"URL password without a host", "http://u:hunter2secret@/"},
		{"query token in a URL with a bad escape", "http://127.0.0.1/%zz?access_token=hunter2secret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, ExitError, "run", tt.url)
			if strings.Contains(r.stderr, "hunter2secret") || !strings.Contains(r.stderr, "REDACTED") {
				t.Errorf("stderr %q: want the password redacted", r.stderr)
			}
		})
	}
}
