//go:build integration

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
		ChangePoints []labChange      `json:"change_points"`
		Splits       []map[string]any `json:"splits"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, metric := range []string{"p95", "throughput"} {
		if msg := limitIsTheChange(rep.ChangePoints, metric, rows[before].RunID); msg != "" {
			t.Errorf("%s: %s", metric, msg)
		}
	}
	if t.Failed() {
		for i, r := range rows {
			t.Logf("run %2d %s: p95 %s ms, %.0f req/s", i, r.RunID, msOf(r.P95), r.Throughput)
		}
		t.Logf("regressions:\n%s", out)
	}
}

type labChange struct {
	RunID          string  `json:"run_id"`
	Metric         string  `json:"metric"`
	Direction      string  `json:"direction"`
	RelativeChange float64 `json:"relative_change"`
}

// limitIsTheChange says what is wrong unless metric's largest change is a
// regression at the first limited run. Smaller change points elsewhere
// are the permutation test's expected false positives on 8 noisy runs (a
// split of either side is tested at 5% significance), not a misplaced
// limit; the limit moves both metrics several-fold.
func limitIsTheChange(cps []labChange, metric, limited string) string {
	var top *labChange
	for i, c := range cps {
		if c.Metric == metric && (top == nil || math.Abs(c.RelativeChange) > math.Abs(top.RelativeChange)) {
			top = &cps[i]
		}
	}
	switch {
	case top == nil:
		return "no change point found"
	case top.RunID != limited || top.Direction != "regression":
		return fmt.Sprintf("largest change at %s (%s, %+.2f), want a regression at run %q, the first under the limit",
			top.RunID, top.Direction, top.RelativeChange, limited)
	}
	return ""
}

func msOf(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
