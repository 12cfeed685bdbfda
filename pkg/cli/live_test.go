package cli

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// TestLiveWithoutTerminal checks that --live changes nothing when stdout
// is not a terminal: run prints the same terminal.golden as without it
// (TestRunGoldenOutput), capacity and ladder accept the flag, and the
// messages on stderr are the same lines as without it.
func TestLiveWithoutTerminal(t *testing.T) {
	t.Parallel()
	var srv *counted
	srv = newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		if srv.n.Load()%10 == 0 {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("hello\n"))
	})
	tmp := t.TempDir()
	file := writeFile(t, tmp, "golden.yaml", `name: golden
targets:
  - name: echo
    url: `+srv.URL+`/golden
    layers: [route, oauth-proxy, http-echo]
load: {requests: 20, concurrency: 2, iterations: 2}
`)
	var stderr []string
	for _, live := range []bool{false, true} {
		srv.n.Store(0)
		out := filepath.Join(tmp, "runs", map[bool]string{false: "plain", true: "live"}[live])
		args := []string{"run", "-f", file, "--out", out}
		if live {
			args = append(args, "--live")
		}
		r := mustRun(t, ExitOK, args...)
		dir := runDir(t, out)
		run, _ := readRun(t, dir)
		text := strings.ReplaceAll(r.stdout, dir, "RUN_DIR")
		text = strings.ReplaceAll(text, run.ID, "RUN_ID")
		if live {
			testenv.Golden(t, "testdata/golden/terminal.golden", []byte(dialPhases.ReplaceAllString(normalise(text), "$1: MEASURED-OR-NOT")))
		}
		stderr = append(stderr, normalise(strings.ReplaceAll(r.stderr, dir, "RUN_DIR")))
	}
	if stderr[0] != stderr[1] {
		t.Errorf("stderr with --live differs:\n%s\nwithout:\n%s", stderr[1], stderr[0])
	}
	if strings.Contains(stderr[1], "\033[") {
		t.Errorf("escape sequences on a stderr that is no terminal:\n%q", stderr[1])
	}
}

// TestLiveFlagOnEveryLoadCommand checks that capacity and ladder take
// --live as run does.
func TestLiveFlagOnEveryLoadCommand(t *testing.T) {
	for _, cmd := range []string{"run", "capacity", "ladder"} {
		r := mustRun(t, ExitOK, cmd, "--help")
		if !strings.Contains(r.stdout, "--live") {
			t.Errorf("%s --help does not list --live:\n%s", cmd, r.stdout)
		}
	}
}
