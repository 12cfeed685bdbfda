package auth

import (
	"context"
	"fmt"
	"github.com/authbench/authbench/internal/boundedio"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fileSource serves the token in a file and picks up rotations (a rewrite,
// or an atomic rename such as a Kubernetes projected token's symlink swap).
// A background poller stats the file every interval and re-reads it only if
// it changed, so Token is a single atomic load: not even a clock read, which
// is a system call in some sandboxes.
type fileSource struct {
	path     string
	interval time.Duration // 0: check on every Token call
	tok      atomic.Pointer[string]

	mu   sync.Mutex  // held by the one caller checking the file
	info os.FileInfo // of the version in tok; guarded by mu
}

func newFile(ctx context.Context, path string, interval time.Duration) (*fileSource, error) {
	s := &fileSource{path: path, interval: interval}
	info, tok, err := s.read()
	if err != nil {
		return nil, err
	}
	s.info = info
	s.tok.Store(&tok)
	if interval > 0 {
		go s.poll(ctx)
	}
	return s, nil
}

// read returns the file's info and trimmed content. The stat comes first, so
// a change racing with the read is seen again at the next check.
func (s *fileSource) read() (os.FileInfo, string, error) {
	info, err := os.Stat(s.path)
	if err != nil {
		return nil, "", fmt.Errorf("reading token file: %w", err)
	}
	b, err := boundedio.ReadFile(s.path, boundedio.Secret)
	if err != nil {
		return nil, "", fmt.Errorf("reading token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if err := checkToken(tok); err != nil {
		return nil, "", fmt.Errorf("reading token file %s: %w", s.path, err)
	}
	return info, tok, nil
}

// Token returns the file's current token.
func (s *fileSource) Token(context.Context) (string, error) {
	if s.interval == 0 {
		s.check()
	}
	return *s.tok.Load(), nil
}

// poll checks the file every interval until ctx is done.
func (s *fileSource) poll(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.check()
		}
	}
}

// check re-reads the file if it changed. A file that is missing, empty or
// unreadable (mid-rotation) keeps the previous token and is retried at the
// next check.
func (s *fileSource) check() {
	if !s.mu.TryLock() {
		return // another caller is checking; serve the cached token
	}
	defer s.mu.Unlock()
	info, err := os.Stat(s.path)
	if err != nil || unchanged(s.info, info) {
		return
	}
	info, tok, err := s.read()
	if err != nil {
		return
	}
	s.info = info
	s.tok.Store(&tok)
}

func unchanged(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// Kind is "file".
func (s *fileSource) Kind() string { return "file" }

// Format names the file, never its content.
func (s *fileSource) Format(f fmt.State, _ rune) { describe(f, "file", s.path) }
