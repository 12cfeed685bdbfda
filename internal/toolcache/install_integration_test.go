//go:build integration

package toolcache

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// tlogWriter sends progress lines to the test log.
type tlogWriter struct{ t *testing.T }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestInstallIntegration installs the lab for real (a no-op when `make lab`
// ran first), then checks every program runs and reports its pinned version,
// and that a second Install finds everything cached.
func TestInstallIntegration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	if _, err := Install(ctx, Options{Out: tlogWriter{t}}); err != nil {
		t.Fatalf("Install: %v", err)
	}
	for _, tool := range Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			bin, err := ToolPath(tool.Name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, bin, tool.VersionArgs...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", bin, tool.VersionArgs, err, out)
			}
			if !strings.Contains(string(out), tool.VersionWant) {
				t.Errorf("%s prints %q, want %q", tool.Name, out, tool.VersionWant)
			}
		})
	}
	for _, w := range Wheels() {
		t.Run(w.Name, func(t *testing.T) {
			bin, err := ToolPath(w.Name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, bin, w.VersionArgs...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), w.Version) {
				t.Errorf("%s %v: %v, prints %q, want version %s", bin, w.VersionArgs, err, out, w.Version)
			}
		})
	}
	t.Run("versions", func(t *testing.T) {
		for _, c := range Components() {
			if c.Step == "chromium" {
				continue // optional
			}
			v, err := InstalledVersion(ctx, c.Name)
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			t.Logf("%s %s", c.Name, v)
			if c.Pinned != "" && strings.TrimPrefix(v, "v") != strings.TrimPrefix(c.Pinned, "v") {
				t.Errorf("%s reports version %s, pinned %s", c.Name, v, c.Pinned)
			}
		}
	})
	t.Run("second run is all cached", func(t *testing.T) {
		rep, err := Install(ctx, Options{Out: tlogWriter{t}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Steps {
			if s.Status != StatusCached {
				t.Errorf("%s: %s on the second run, want cached", s.Name, s.Status)
			}
		}
	})
}
