//go:build unix

package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// umaskEnv tells the test binary, run again as a child, which umask to
// set and where to write: the umask is process-wide, so it is changed
// only in a process of its own.
const umaskEnv = "ATOMICFILE_TEST_UMASK"

// TestWriteFollowsUmask: results (0666) and secrets (0600) are written
// with the umask applied, as os.WriteFile would: a user with umask 077
// gets no file others can read.
func TestWriteFollowsUmask(t *testing.T) {
	if v := os.Getenv(umaskEnv); v != "" {
		writeUnderUmask(t, v)
		return
	}
	tests := []struct {
		umask                int
		wantResult, wantSecr os.FileMode
	}{
		{0o077, 0o600, 0o600},
		{0o022, 0o644, 0o600},
		{0o002, 0o664, 0o600},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("umask %03o", tt.umask), func(t *testing.T) {
			dir := t.TempDir()
			// An existing, wider destination is replaced with the new mode.
			if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFollowsUmask$")
			cmd.Env = append(os.Environ(), umaskEnv+"="+strconv.FormatInt(int64(tt.umask), 8)+":"+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			for name, want := range map[string]os.FileMode{"result": tt.wantResult, "streamed": tt.wantResult, "secret": tt.wantSecr} {
				fi, err := os.Stat(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != want {
					t.Errorf("%s: mode %v under umask %03o, want %v", name, fi.Mode().Perm(), tt.umask, want)
				}
			}
		})
	}
}

// writeUnderUmask is the child's side: "umask:dir".
func writeUnderUmask(t *testing.T, v string) {
	mask, dir, _ := strings.Cut(v, ":")
	m, err := strconv.ParseInt(mask, 8, 32)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Umask(int(m))
	if err := Write(filepath.Join(dir, "result"), []byte("r"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(filepath.Join(dir, "streamed"), 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}
