package toolcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockStep takes an exclusive lock on CACHE/locks/NAME.lock so that two
// authbench processes (two test binaries, two shells) never build the same
// tool at once; the second waits and then finds it cached. waiting is called
// once if the lock is busy.
func lockStep(ctx context.Context, cache, name string, waiting func()) (unlock func(), err error) {
	dir := filepath.Join(cache, "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating lock directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock: %w", err)
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", f.Name(), ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
