package toolcache

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func goToolStep(in *installer, t Tool) step {
	mods := &modules{}
	return step{
		name: t.Name, version: t.Version, optional: t.Optional, verb: "building",
		probe: func(context.Context) (string, bool, string, error) {
			inputs, err := inputsHash(t)
			if err != nil {
				return "", false, "", fmt.Errorf("rendering wrapper module: %w", err)
			}
			bin := binPath(in.cache, t.Name, t.Version)
			ok, why := upToDate(toolDir(in.cache, t.Name, t.Version), bin, inputs)
			if ok && !aliasesPresent(bin, t.Aliases) {
				ok, why = false, "aliases missing"
			}
			return bin, ok, why, nil
		},
		// Resolving modules is network-bound: it runs in its own lane, so
		// the next tool's downloads overlap the current tool's compile.
		prefetch: func(ctx context.Context, s stepLog) { mods.prefetch(ctx, in.cache, t, s) },
		install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
			return buildTool(ctx, in.cache, t, in.opts.GoBuildP, mods, s, log)
		},
		release: mods.release,
	}
}

// modules is a tool's wrapper module, written and resolved (go mod tidy)
// once, by the prefetch lane or else by the build itself.
type modules struct {
	once sync.Once
	work string
	log  bytes.Buffer
	cpu  time.Duration
	err  error
}

// prefetch resolves t's modules ahead of its build, printing progress.
func (m *modules) prefetch(ctx context.Context, cache string, t Tool, s stepLog) {
	m.once.Do(func() {
		start := time.Now()
		s.line("resolving modules (go mod tidy)…")
		_, stop := s.heartbeat("resolving modules (go mod tidy)", start)
		defer stop()
		if m.resolve(ctx, cache, t); m.err == nil {
			s.line("modules resolved in %s", roundDur(time.Since(start)))
		}
	})
}

// resolve writes t's wrapper module to a new directory under CACHE/tmp and
// runs go mod tidy there, which downloads every module the build needs.
func (m *modules) resolve(ctx context.Context, cache string, t Tool) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		m.err = fmt.Errorf("finding the go command (install Go 1.24+ and put it on PATH): %w", err)
		return
	}
	if m.work, m.err = writeWrapper(cache, t, &m.log); m.err != nil {
		return
	}
	tidy := command{dir: m.work, env: buildEnv, name: goBin, args: []string{"mod", "tidy"}}
	m.cpu, m.err = tidy.runCPU(ctx, &m.log)
}

// wait returns the resolved wrapper directory: it waits for the prefetch
// lane, or resolves the modules now when that lane has not started them.
func (m *modules) wait(ctx context.Context, cache string, t Tool, s stepLog, log io.Writer) (string, error) {
	s.setDoing("resolving modules (go mod tidy)")
	m.once.Do(func() { m.resolve(ctx, cache, t) })
	_, _ = log.Write(m.log.Bytes())
	return m.work, m.err
}

// release removes the wrapper directory once the step is over; a prefetch
// that has not started by then never will.
func (m *modules) release() {
	m.once.Do(func() {})
	if m.work != "" {
		os.RemoveAll(m.work)
	}
}

// buildTool builds t in its resolved wrapper module beside the binary's
// final place, checks that it prints its pinned version, then renames it
// into place, links its aliases and stamps it.
func buildTool(ctx context.Context, cache string, t Tool, par int, m *modules, s stepLog, log io.Writer) (string, error) {
	start := time.Now()
	inputs, err := inputsHash(t)
	if err != nil {
		return "", err
	}
	work, err := m.wait(ctx, cache, t, s, log)
	if err != nil {
		return "", err
	}
	bin := binPath(cache, t.Name, t.Version)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", filepath.Dir(bin), err)
	}
	tmp := bin + ".building"
	defer os.Remove(tmp)
	build := command{dir: work, env: buildEnv, name: "go", args: []string{
		"build", "-p", strconv.Itoa(par), "-trimpath", "-ldflags", ldflags(t), "-o", tmp, t.Target}}
	s.setDoing("building (go build)")
	cpu, err := build.runCPU(ctx, log)
	if err != nil {
		return "", err
	}
	s.setDoing("checking " + strings.Join(append([]string{t.Name}, t.VersionArgs...), " "))
	if err := checkVersion(ctx, tmp, t); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("moving the binary into place: %w", err)
	}
	if err := linkAliases(bin, t.Aliases); err != nil {
		return "", err
	}
	return bin, writeStamp(toolDir(cache, t.Name, t.Version), Stamp{Name: t.Name, Version: t.Version, Inputs: inputs,
		GoVersion: goVersion(ctx, "go"), Built: time.Now().UTC(), Seconds: time.Since(start).Seconds(),
		CPUSeconds: (m.cpu + cpu).Seconds()})
}

// linkAliases makes each alias a relative symlink to bin in bin's directory.
func linkAliases(bin string, aliases []string) error {
	for _, a := range aliases {
		link := filepath.Join(filepath.Dir(bin), a)
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Base(bin), link); err != nil {
			return fmt.Errorf("linking %s to %s: %w", a, filepath.Base(bin), err)
		}
	}
	return nil
}

func aliasesPresent(bin string, aliases []string) bool {
	for _, a := range aliases {
		if !isExecutable(filepath.Join(filepath.Dir(bin), a)) {
			return false
		}
	}
	return true
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
