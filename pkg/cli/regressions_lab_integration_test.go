//go:build integration

package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/authbench/authbench/pkg/store"
)

// TestRegressionsFindLabCPULimit makes runs against the lab's 2.x stack,
// applies a CPU limit to the oauth proxy halfway (`lab limit`), and
// expects `regressions` to place the change at the first limited run and
// to fail CI with ExitRegression.
func TestRegressionsFindLabCPULimit(t *testing.T) {
	lab, runs := t.TempDir(), t.TempDir()
	bin := func(args ...string) ([]byte, int) {
		out, err := exec.Command(binary, args...).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("authbench %v: %v", args, err)
		}
		return out, 0
	}
	if out, code := bin("lab", "up", "--stack", "2x", "--dir", lab); code != 0 {
		t.Fatalf("lab up: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { bin("lab", "down", "--dir", lab) })
	scen, code := bin("lab", "scenario", "--dir", lab)
	if code != 0 {
		t.Fatalf("lab scenario: exit %d", code)
	}
	file := filepath.Join(t.TempDir(), "lab.yaml")
	must(t, os.WriteFile(file, scen, 0o644))
	const before, after = 8, 8
	for i := range before + after {
		if i == before {
			if out, code := bin("lab", "limit", "--dir", lab, "oauth-proxy=50m"); code != 0 {
				t.Fatalf("lab limit: exit %d\n%s", code, out)
			}
		}
		if out, code := bin("run", "-f", file, "-n", "300", "-c", "8", "--iterations", "3", "--name", "limit", "--out", runs); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i+1, code, out)
		}
	}
	rows, err := store.History(runs, store.HistoryQuery{})
	if err != nil || len(rows) != before+after {
		t.Fatalf("history: %d rows, %v", len(rows), err)
	}
	out, code := bin("regressions", "--out", runs, "--metric", "p95,throughput", "-o", "json", "--fail-on-regression")
	if code != ExitRegression {
		t.Errorf("exit %d, want %d\n%s", code, ExitRegression, out)
	}
	var rep struct {
		ChangePoints []struct {
			RunID          string  `json:"run_id"`
			Metric         string  `json:"metric"`
			Direction      string  `json:"direction"`
			RelativeChange float64 `json:"relative_change"`
		} `json:"change_points"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.ChangePoints) == 0 {
		t.Fatalf("no change point found:\n%s", out)
	}
	for _, c := range rep.ChangePoints {
		if c.RunID != rows[before].RunID || c.Direction != "regression" {
			t.Errorf("%s: change at %s (%s, %+.2f), want a regression at run %s, the first under the limit",
				c.Metric, c.RunID, c.Direction, c.RelativeChange, strconv.Quote(rows[before].RunID))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
