package boundedio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileBound(t *testing.T) {
	kind := Kind{"a test file", 1 << 10}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
		ok   bool
	}{{"empty", 0, true}, {"at the bound", 1 << 10, true}, {"one byte over", 1<<10 + 1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, make([]byte, tc.size), 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := ReadFile(p, kind)
			if tc.ok && (err != nil || len(b) != tc.size) {
				t.Errorf("got %d bytes, %v; want %d bytes", len(b), err, tc.size)
			}
			if !tc.ok && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "1024 bytes")) {
				t.Errorf("got %v, want a too-large error naming %s and the bound", err, p)
			}
		})
	}
}

// TestReadFileEndless: /dev/zero, whose size says nothing, stops at the
// bound instead of exhausting memory.
func TestReadFileEndless(t *testing.T) {
	_, err := ReadFile("/dev/zero", Scenario)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Path != "/dev/zero" || !strings.Contains(err.Error(), "4 MiB") {
		t.Errorf("got %v, want the scenario bound named", err)
	}
}

// TestReadFileContextFIFO: a FIFO nobody writes blocks its open, and one
// whose writer says nothing blocks its reads; both give up when the
// context is cancelled.
func TestReadFileContextFIFO(t *testing.T) {
	for _, writer := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no FIFO: %v", err)
		}
		if writer {
			// O_RDWR opens without waiting for a reader, and keeps the
			// FIFO open for writing without writing anything.
			w, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := ReadFileContext(ctx, p, Scenario)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("writer %v: got %v, want context.Canceled", writer, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("writer %v: took %s to give up", writer, took)
		}
	}
}
