package auth

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStaticAndEnv(t *testing.T) {
	t.Setenv("AB_TEST_TOKEN", "  env-tok\n")
	t.Setenv("AB_TEST_EMPTY", "")
	tests := []struct {
		name     string
		spec     Spec
		want     string
		wantKind string
		wantErr  string
	}{
		{name: "static", spec: Spec{Static: true, Literal: "lit-tok"}, want: "lit-tok", wantKind: "static"},
		{name: "static empty", spec: Spec{Static: true}, wantErr: "token is empty"},
		{name: "static with newline", spec: Spec{Static: true, Literal: "a\nb"}, wantErr: "control character"},
		{name: "env trimmed", spec: Spec{Env: "AB_TEST_TOKEN"}, want: "env-tok", wantKind: "env"},
		{name: "env empty", spec: Spec{Env: "AB_TEST_EMPTY"}, wantErr: "variable AB_TEST_EMPTY is empty"},
		{name: "env unset", spec: Spec{Env: "AB_TEST_UNSET_XYZ"}, wantErr: "variable AB_TEST_UNSET_XYZ is not set"},
		{name: "no source", spec: Spec{}, wantErr: "no token source"},
		{name: "two sources", spec: Spec{Env: "A", File: "f"}, wantErr: "more than one token source (env, file)"},
		{name: "refresh without command", spec: Spec{Env: "A", Refresh: "1m"}, wantErr: "refresh applies only to a command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(t.Context(), &tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok, err := src.Token(t.Context()); tok != tt.want || err != nil {
				t.Errorf("Token() = %q, %v; want %q", tok, err, tt.want)
			}
			if src.Kind() != tt.wantKind {
				t.Errorf("Kind() = %q, want %q", src.Kind(), tt.wantKind)
			}
		})
	}
}

func TestFileRotation(t *testing.T) {
	tests := []struct {
		name   string
		rotate func(t *testing.T, path string)
		want   string
	}{
		{
			name:   "rewritten in place",
			rotate: func(t *testing.T, path string) { write(t, path, "second-token-longer\n") },
			want:   "second-token-longer",
		},
		{
			name: "atomic rename, same size",
			rotate: func(t *testing.T, path string) {
				tmp := path + ".new"
				write(t, tmp, "tok-2\n")
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
			},
			want: "tok-2",
		},
		{
			name:   "removed: keep the last token",
			rotate: func(t *testing.T, path string) { _ = os.Remove(path) },
			want:   "tok-1",
		},
		{
			name:   "emptied mid-write: keep the last token",
			rotate: func(t *testing.T, path string) { write(t, path, "") },
			want:   "tok-1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "token", "  tok-1\n")
			src, err := New(t.Context(), &Spec{File: path}, WithFileCheckInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			if tok, _ := src.Token(t.Context()); tok != "tok-1" {
				t.Fatalf("first Token() = %q", tok)
			}
			tt.rotate(t, path)
			if tok, _ := src.Token(t.Context()); tok != tt.want {
				t.Errorf("Token() after rotation = %q, want %q", tok, tt.want)
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Between checks the file is not looked at; at the next check a change is
// picked up. The check is made by hand so that no timing is involved.
func TestFileCheckInterval(t *testing.T) {
	path := writeFile(t, "token", "tok-1")
	src, err := New(t.Context(), &Spec{File: path}, WithFileCheckInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, "tok-22")
	if tok, _ := src.Token(t.Context()); tok != "tok-1" {
		t.Errorf("Token() before the next check = %q, want the cached tok-1", tok)
	}
	src.(*fileSource).check()
	if tok, _ := src.Token(t.Context()); tok != "tok-22" {
		t.Errorf("Token() after a check = %q, want tok-22", tok)
	}
}

// The background poller picks up a rotation without any Token call.
func TestFilePoller(t *testing.T) {
	path := writeFile(t, "token", "tok-1")
	src, err := New(t.Context(), &Spec{File: path}, WithFileCheckInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, "tok-22")
	fs := src.(*fileSource)
	waitFor(t, "the poller to read the new token", 3*time.Second, func() bool { return *fs.tok.Load() == "tok-22" })
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "none"), "reading token file: stat "},
		{"empty", writeFile(t, "empty", " \n"), "token is empty"},
		{"directory", dir, "reading token file: read "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(t.Context(), &Spec{File: tt.path})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New() error = %v, want %q", err, tt.want)
			}
		})
	}
}

// Token is called from many goroutines while the file rotates; run with -race.
func TestFileConcurrent(t *testing.T) {
	path := writeFile(t, "token", "tok-a")
	src, err := New(t.Context(), &Spec{File: path}, WithFileCheckInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if tok, err := src.Token(t.Context()); err != nil || (tok != "tok-a" && tok != "tok-bb") {
					t.Errorf("Token() = %q, %v", tok, err)
					return
				}
			}
		})
	}
	write(t, path, "tok-bb")
	wg.Wait()
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    string
		wantErr string
		notErr  string
	}{
		{name: "echo", command: "echo tok", want: "tok"},
		{name: "trimmed", command: "printf '  tok-2 \\n\\n'", want: "tok-2"},
		{name: "fails with stderr", command: "echo partial-token; echo 'error: You must be logged in' >&2; exit 3",
			wantErr: "running token command: exit status 3: stderr: error: You must be logged in", notErr: "partial-token"},
		{name: "prints nothing", command: "true", wantErr: "it printed nothing on stdout"},
		{name: "not found", command: "no-such-command-xyz", wantErr: "exit status 127: stderr: "},
		{name: "two lines", command: "printf 'a\\nb'", wantErr: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(t.Context(), &Spec{Command: tt.command})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New() error = %v, want %q", err, tt.wantErr)
				}
				if tt.notErr != "" && strings.Contains(err.Error(), tt.notErr) {
					t.Errorf("error %q contains the command's stdout", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok, _ := src.Token(t.Context()); tok != tt.want {
				t.Errorf("Token() = %q, want %q", tok, tt.want)
			}
		})
	}
}

func TestCommandTimeout(t *testing.T) {
	_, err := New(t.Context(), &Spec{Command: "sleep 5"}, WithCommandTimeout(100*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("New() error = %v, want a deadline error", err)
	}
}

func TestCommandRefresh(t *testing.T) {
	path := writeFile(t, "tok", "cmd-1")
	var mu sync.Mutex
	var reported []error
	src, err := New(t.Context(), &Spec{Command: "cat " + path, Refresh: "50ms"},
		WithErrorHandler(func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, "cmd-2")
	waitFor(t, "the command's new output", 3*time.Second, func() bool {
		tok, _ := src.Token(t.Context())
		return tok == "cmd-2"
	})
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a reported failure", 3*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(reported) > 0
	})
	if tok, _ := src.Token(t.Context()); tok != "cmd-2" {
		t.Errorf("Token() after a failed re-run = %q, want the last good cmd-2", tok)
	}
}
