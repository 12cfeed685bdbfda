// Package lock holds the lab directory's flocks: the supervisor's (lab.lock,
// holding its pid, alive exactly as long as the supervisor) and the one
// serialising rewrites of state.json; and the liveness checks built on them.
package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Files of the lab directory this package owns.
const (
	File      = "lab.lock"   // flock held by the running supervisor
	StateFile = "state.lock" // flock held while state.json is rewritten
)

// ErrAlreadyRunning reports a lab directory whose supervisor is alive.
var ErrAlreadyRunning = errors.New("a lab is already running")

// Acquire takes the lab's flock for the supervisor's lifetime and
// writes the supervisor's pid into the lock file. The lock dies with the
// process, so a crashed supervisor never blocks the next `lab up`.
func Acquire(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, File), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lab lock: %w", err)
	}
	if err := flockRetry(f, syscall.LOCK_EX); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w in %s (supervisor pid %d)", ErrAlreadyRunning, dir, Holder(dir))
		}
		return nil, fmt.Errorf("locking lab dir: %w", err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// State takes the flock that serialises writers of state.json across
// processes (the supervisor, and SetLimits in `lab limit`), each of which
// reads, changes and rewrites it. It waits for the holder; unlock releases.
func State(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, StateFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lab state lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking lab state: %w", err)
	}
	return func() { f.Close() }, nil
}

// Alive reports whether some process holds the lab's lock.
func Alive(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, File), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	// A shared probe conflicts only with the supervisor's exclusive lock,
	// not with other processes probing at the same moment.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// flockRetry takes a lock without blocking, retrying for a moment: a
// liveness probe (Alive) holds a shared lock for microseconds, and
// must not make a starting supervisor believe another one runs.
func flockRetry(f *os.File, how int) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// Holder is the pid written in the lock file (0 if none).
func Holder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// ProcessAlive reports whether pid exists (and is not a zombie we could
// never reap: those count as gone).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// Runs reports whether process pid runs exe: exe is its first argument, or
// its second when an interpreter runs it (kc.sh under sh).
func Runs(pid int, exe string) bool {
	if exe == "" {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.SplitN(string(b), "\x00", 3)
	return args[0] == exe || (len(args) > 1 && args[1] == exe)
}
