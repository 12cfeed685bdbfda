package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		before  string // existing content, "" for none
		data    string
		perm    os.FileMode
		wantErr bool
	}{
		{"new file", "", "hello", 0o644, false},
		{"replaces and resets mode", "old content", "new", 0o600, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(path, []byte(tt.data), tt.perm); (err != nil) != tt.wantErr {
				t.Fatalf("Write: %v", err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != tt.data {
				t.Fatalf("content = %q, %v; want %q", b, err, tt.data)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, want %v", st.Mode().Perm(), tt.perm)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("temporary files left: %v", ents)
			}
		})
	}
}

func TestAbortLeavesDestination(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hlog")
	if err := os.WriteFile(path, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "kept" {
		t.Errorf("destination = %q after Abort, want it untouched", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestWriteMissingDir(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "such", "f"), []byte("x"), 0o644); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}
