package toolcache

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func goToolStep(in *installer, t Tool) step {
	return step{
		name: t.Name, version: t.Version, optional: t.Optional, verb: "building",
		probe: func(context.Context) (string, bool, string, error) {
			inputs, err := inputsHash(t)
			if err != nil {
				return "", false, "", fmt.Errorf("rendering wrapper module: %w", err)
			}
			bin := binPath(in.cache, t.Name, t.Version)
			ok, why := upToDate(toolDir(in.cache, t.Name, t.Version), bin, inputs)
			return bin, ok, why, nil
		},
		install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
			return buildTool(ctx, in.cache, t, in.opts.GoBuildP, s, log)
		},
	}
}

// buildTool writes t's wrapper module to a temporary directory, resolves it
// with go mod tidy, builds the binary beside its final place, checks that it
// prints its pinned version, then renames it into place and stamps it.
func buildTool(ctx context.Context, cache string, t Tool, par int, s stepLog, log io.Writer) (string, error) {
	start := time.Now()
	inputs, err := inputsHash(t)
	if err != nil {
		return "", err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("finding the go command (install Go 1.24+ and put it on PATH): %w", err)
	}
	work, err := writeWrapper(cache, t, log)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	dir := toolDir(cache, t.Name, t.Version)
	bin := binPath(cache, t.Name, t.Version)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", filepath.Dir(bin), err)
	}
	tmp := bin + ".building"
	defer os.Remove(tmp)
	var cpu time.Duration
	tidy := command{dir: work, env: buildEnv, name: goBin, args: []string{"mod", "tidy"}}
	build := command{dir: work, env: buildEnv, name: goBin, args: []string{
		"build", "-p", strconv.Itoa(par), "-trimpath", "-ldflags", ldflags(t), "-o", tmp, buildTarget(t)}}
	for _, c := range []struct {
		doing string
		cmd   command
	}{{"resolving modules (go mod tidy)", tidy}, {"building (go build)", build}} {
		s.setDoing(c.doing)
		used, err := c.cmd.runCPU(ctx, log)
		cpu += used
		if err != nil {
			return "", err
		}
	}
	s.setDoing("checking " + strings.Join(append([]string{t.Name}, t.VersionArgs...), " "))
	if err := checkVersion(ctx, tmp, t); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("moving the binary into place: %w", err)
	}
	return bin, writeStamp(dir, Stamp{Name: t.Name, Version: t.Version, Inputs: inputs,
		GoVersion: goVersion(ctx, goBin), Built: time.Now().UTC(), Seconds: time.Since(start).Seconds(), CPUSeconds: cpu.Seconds()})
}

// writeWrapper renders t's wrapper module into a new directory under
// CACHE/tmp and copies the files into the log for diagnosis.
func writeWrapper(cache string, t Tool, log io.Writer) (string, error) {
	files, err := renderWrapper(t)
	if err != nil {
		return "", fmt.Errorf("rendering wrapper module: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "tmp"), 0o755); err != nil {
		return "", fmt.Errorf("creating build directory: %w", err)
	}
	work, err := os.MkdirTemp(filepath.Join(cache, "tmp"), t.Name+"-")
	if err != nil {
		return "", fmt.Errorf("creating build directory: %w", err)
	}
	for _, f := range files {
		fmt.Fprintf(log, "--- %s/%s\n%s", work, f.Name, f.Data)
		if err := os.WriteFile(filepath.Join(work, f.Name), f.Data, 0o644); err != nil {
			os.RemoveAll(work)
			return "", fmt.Errorf("writing wrapper module: %w", err)
		}
	}
	return work, nil
}

// checkVersion runs the new binary with its version flag: a build that
// links but does not run, or carries the wrong version, is never cached.
func checkVersion(ctx context.Context, bin string, t Tool) error {
	if len(t.VersionArgs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, t.VersionArgs...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("running the new %s %s: %w (output %q)", t.Name, strings.Join(t.VersionArgs, " "), err, out)
	}
	if !strings.Contains(string(out), t.VersionWant) {
		return fmt.Errorf("the new %s prints %q, want %q", t.Name, strings.TrimSpace(string(out)), t.VersionWant)
	}
	return nil
}

func goVersion(ctx context.Context, goBin string) string {
	out, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
