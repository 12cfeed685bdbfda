//go:build integration

package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/results"
)

// TestRunStagesHoldRates runs --stages "4s:100,4s:400,4s:100" against a
// real http-echo: each stage's achieved rate is within 5% of its target,
// sends every request it schedules, and the per-stage results reach
// run.json and the summary.
func TestRunStagesHoldRates(t *testing.T) {
	bin := testenv.NeedTools(t, toolcache.ToolPath, "`make lab` installs it", "http-echo")[0]
	url := startEcho(t, bin)
	out := t.TempDir()
	p := start(t, "run", "--stages", "4s:100,4s:400,4s:100", "-c", "20", "--out", out, "-o", "json", url)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	var run results.Run
	if err := json.Unmarshal(p.stdout.Bytes(), &run); err != nil {
		t.Fatalf("run.json on stdout: %v\n%.300s", err, p.stdout.String())
	}
	if len(run.Results) != 1 || len(run.Results[0].Stages) != 3 {
		t.Fatalf("want one result with 3 stages, got %+v", run.Results)
	}
	for _, st := range run.Results[0].Stages {
		off := st.AchievedRPS/st.TargetRPS - 1
		t.Logf("stage %d %s: achieved %.2f req/s (%+.2f%%), p99 %.2f ms, late %d", st.Stage, st.Spec, st.AchievedRPS, off*100, st.Latency.P99, st.LateSends)
		if off < -0.05 || off > 0.05 {
			t.Errorf("stage %d (%s): achieved %.1f req/s, more than 5%% off %g", st.Stage, st.Spec, st.AchievedRPS, st.TargetRPS)
		}
		if want := int64(st.TargetRPS * st.DurationS); st.Scheduled != want || st.Requests != want || st.Status["200"] != want {
			t.Errorf("stage %d: scheduled %d, completed %d, 200s %d; want %d", st.Stage, st.Scheduled, st.Requests, st.Status["200"], want)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-run", "summary.md"))
	if len(dirs) != 1 {
		t.Fatalf("summary.md: found %v", dirs)
	}
	md, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Stages") || !strings.Contains(string(md), "hold 400 req/s for 4s") {
		t.Errorf("summary has no stage section:\n%s", md)
	}
}

// startEcho starts http-echo on a free loopback port and returns its URL
// once it answers.
func startEcho(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-listen="+addr, "-text=hello")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + addr + "/"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return url
		}
	}
	t.Fatalf("http-echo did not answer on %s", addr)
	return ""
}
