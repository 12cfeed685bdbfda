package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/results"
)

// TestRunGoldenOutput pins the shape of what a user reads after a run:
// the hey-style terminal output and summary.md. Timings vary from run to
// run, so the comparison is of normalised text:
//   - terminal: the run directory becomes RUN_DIR and the run id RUN_ID,
//     then every number becomes N and runs of blanks one space (normalise);
//   - summary.md: only its structure is compared (summaryStructure): the
//     headings, table header rows, bullet labels and the architecture
//     diagram, numbers as N, without
//     the Findings and Resource Utilization sections, whose findings and
//     rows depend on the measured numbers (a row such as "Requests per
//     Core-Second" is left out when CPU use rounds to zero).
//
// It also checks that `authbench report RUN_DIR` regenerates summary.md
// byte for byte from run.json alone.
// dialPhases matches the connection phases of the terminal output. Whether a
// worker dials in the second iteration depends on whether it got a request in
// the first (the workers share the count), so the golden keeps the lines and
// not their figures.
var dialPhases = regexp.MustCompile(`(?m)^ (DNS-lookup|dialup|TLS handshake): .*$`)

func TestRunGoldenOutput(t *testing.T) {
	t.Parallel()
	// Requests 10, 20, 30 and 40 (the probe is the first) get a 401: two
	// per iteration, so the error sections are always there.
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
	out := filepath.Join(tmp, "runs")
	r := mustRun(t, ExitOK, "run", "-f", file, "--out", out)
	dir := runDir(t, out)
	run, _ := readRun(t, dir)

	text := strings.ReplaceAll(r.stdout, dir, "RUN_DIR")
	text = strings.ReplaceAll(text, run.ID, "RUN_ID")
	testenv.Golden(t, "testdata/golden/terminal.golden", []byte(dialPhases.ReplaceAllString(normalise(text), "$1: MEASURED-OR-NOT")))

	md, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/golden/summary-structure.golden", []byte(summaryStructure(string(md))))

	again := mustRun(t, ExitOK, "report", dir, "--output-file", "-")
	if again.stdout != string(md) {
		t.Errorf("`authbench report` from run.json differs from the summary.md the run wrote:\n%s", again.stdout)
	}
}

var (
	tableDivider = regexp.MustCompile(`^\|[-:| ]+\|$`)
	bulletLabel  = regexp.MustCompile(`^(\s*- \*\*[^*]+:\*\*)`)
)

// summaryStructure keeps the skeleton of a summary: heading lines, table
// header rows (the row above a |---| divider), bullet labels ("- **P50
// Latency:**" without its value) and code blocks (the architecture chain),
// with numbers normalised. The Findings and Resource Utilization sections
// are dropped: which findings fire and which resource rows are shown
// depend on the timings.
func summaryStructure(md string) string {
	lines := strings.Split(md, "\n")
	var keep []string
	dropped, inCode := false, false
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			dropped = l == "## Findings" || l == "## Resource Utilization"
		}
		fence := strings.HasPrefix(l, "```")
		switch {
		case dropped:
		case fence || inCode:
			keep = append(keep, l)
			inCode = inCode != fence
		case strings.HasPrefix(l, "#"):
			keep = append(keep, l)
		case i+1 < len(lines) && strings.HasPrefix(l, "|") && tableDivider.MatchString(lines[i+1]):
			keep = append(keep, l)
		case bulletLabel.MatchString(l):
			keep = append(keep, bulletLabel.FindString(l))
		}
	}
	return normalise(strings.Join(keep, "\n") + "\n")
}
