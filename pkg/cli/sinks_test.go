package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// fakeOpenSearch accepts a publish and keeps every request body.
type fakeOpenSearch struct {
	*httptest.Server
	mu     sync.Mutex
	bodies bytes.Buffer
}

func newFakeOpenSearch(t *testing.T) *fakeOpenSearch {
	f := &fakeOpenSearch{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies.Write(b)
		f.mu.Unlock()
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "_index_template"):
			http.NotFound(w, r)
		case strings.HasSuffix(r.URL.Path, "_bulk"):
			var items []string
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 16<<20)
			for i := 0; sc.Scan(); i++ {
				if i%2 == 0 {
					items = append(items, `{"create":{"status":201}}`)
				}
			}
			_, _ = w.Write([]byte(`{"errors":false,"items":[` + strings.Join(items, ",") + `]}`))
		default:
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// TestNoSecretInAnySink gives a run its secrets in every place a user
// puts them (a URL password, query and fragment tokens, a token command
// whose arguments hold the token, a proxy's JWT header) against a server
// that echoes the token in its Server header, plus a probe refused on a
// URL with a query token; then searches every sink for them: each file of
// the runs directory (run.json, summary.md, timeline.json, .hlog,
// history.db), everything run, report and history print (text and JSON)
// and the documents sent to OpenSearch.
func TestNoSecretInAnySink(t *testing.T) {
	t.Parallel()
	const (
		pw      = "S3CRET-pw-41c"
		query   = "S3CRET-qt-92d"
		frag    = "S3CRET-ft-07e"
		tok     = "S3CRET-cmdtok-5b8"
		refused = "S3CRET-refused-3aa"
		jwt     = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLTYxZg"
	)
	secrets := []string{pw, query, frag, tok, refused, jwt}
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Server", "gw/1.0 (saw "+got+")")
		if got != tok || r.URL.Query().Get("access_token") != query {
			http.Error(w, "no credential", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	target := strings.Replace(srv.URL, "http://", "http://alice:"+pw+"@", 1) + "/private?access_token=" + query + "#id_token=" + frag
	out := t.TempDir()
	var printed strings.Builder
	for _, args := range [][]string{
		{"run", "-n", "10", "-c", "2", "--name", "sinks", "--out", out, "-o", "json",
			"--token-command", "echo " + tok, "-H", "X-Goog-IAP-JWT-Assertion: " + jwt, target},
		{"run", "-n", "2", "-c", "1", "--name", "refused", "--out", out, "-o", "json",
			closedPort(t) + "x?access_token=" + refused},
	} {
		r := mustRun(t, ExitOK, args...)
		printed.WriteString(r.stdout + r.stderr)
	}
	if srv.n.Load() == 0 {
		t.Fatal("the server received nothing: the run proves nothing")
	}
	search := newFakeOpenSearch(t)
	for _, args := range [][]string{
		{"history", "--out", out}, {"history", "--out", out, "-o", "json"},
	} {
		r := runCLI(t, args...)
		printed.WriteString(r.stdout + r.stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*", results.RunFile))
	if len(dirs) != 2 {
		t.Fatalf("run.json files %v, want one per run", dirs)
	}
	for _, d := range dirs {
		r := mustRun(t, ExitOK, "report", filepath.Dir(d))
		printed.WriteString(r.stdout + r.stderr)
		r = mustRun(t, ExitOK, "publish", filepath.Dir(d), "--opensearch", search.URL)
		printed.WriteString(r.stdout + r.stderr)
	}
	search.mu.Lock()
	docs := search.bodies.String()
	search.mu.Unlock()
	if !strings.Contains(docs, `"run_name":"sinks"`) || !strings.Contains(docs, `"run_name":"refused"`) {
		t.Errorf("OpenSearch received no document of each run:\n%.500s", docs)
	}
	if !strings.Contains(printed.String(), "refused") {
		t.Errorf("the refused probe left no trace in the output")
	}
	for _, s := range secrets {
		for what, text := range map[string]string{"the output": printed.String(), "the OpenSearch documents": docs} {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s holds %s: ...%s...", what, s, text[max(0, i-150):min(len(text), i+len(s)+30)])
			}
		}
		files := searchTree(t, out, s)
		for _, want := range []string{"run.json", "summary.md", "timeline.json", ".hlog", "history.db"} {
			if !strings.Contains(strings.Join(files, " "), want) {
				t.Errorf("searched %v: no %s, so the search proves nothing about it", files, want)
			}
		}
	}
	checkRecorded(t, dirs)
}

// checkRecorded: the records say what was done, redacted, rather than
// nothing: the token command's program, the refused probe's error.
func checkRecorded(t *testing.T, dirs []string) {
	t.Helper()
	var all strings.Builder
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, want := range []string{`"command": "echo <redacted`, "access_token=REDACTED", "connection refused", "alice:REDACTED@"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("run.json files lack %q", want)
		}
	}
}
