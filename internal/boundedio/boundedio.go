// Package boundedio reads the files a user or a server hands authbench
// (scenarios, runs, histogram logs, imported outputs, tokens, CA bundles,
// kubeconfigs, request bodies) with a bound on their size, so that
// /dev/zero, a FIFO fed forever or a runaway file ends in an error naming
// the file and the bound, never in "fatal error: out of memory".
package boundedio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Kind is a kind of file and the most authbench reads of one.
type Kind struct {
	// Name says what the file is, for errors: "a scenario file".
	Name string
	// Max is the bound in bytes.
	Max int64
}

// The bounds, per kind of file: each far above any real file of its kind
// and far below the memory of the machine that reads it.
var (
	// Scenario: a YAML scenario; real ones are a few KiB.
	Scenario = Kind{"a scenario file", 4 << 20}
	// Run: run.json, timeline.json or capacity.json of a run directory;
	// a day-long run with hundreds of targets stays under a few MiB.
	Run = Kind{"a run file", 64 << 20}
	// Histogram: an .hlog, one line of about 1 KiB per second of load, so
	// days of a single target.
	Histogram = Kind{"a histogram log", 256 << 20}
	// Import: a hey or wrk output, a few KiB per run it holds.
	Import = Kind{"an imported output", 64 << 20}
	// Secret: a token, password or client secret file; a JWT is a few KiB.
	Secret = Kind{"a token or secret file", 1 << 20}
	// TokenPool: a file of tokens, one a line.
	TokenPool = Kind{"a token pool file", 64 << 20}
	// PEM: a CA bundle, certificate or key; the system bundle is 200 KiB.
	PEM = Kind{"a PEM file", 16 << 20}
	// Config: a kubeconfig or another tool's configuration.
	Config = Kind{"a configuration file", 16 << 20}
	// Body: a request body file, held in memory while the load runs.
	Body = Kind{"a request body file", 256 << 20}
)

// ErrTooLarge is wrapped by every error at a bound.
var ErrTooLarge = errors.New("file too large")

// TooLargeError names the file that passed its bound.
type TooLargeError struct {
	Path string
	Kind Kind
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most authbench reads of %s", e.Path, size(e.Kind.Max), e.Kind.Name)
}

// Unwrap makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the file at path, refusing one larger than kind's bound.
func ReadFile(path string, kind Kind) ([]byte, error) {
	return ReadFileContext(context.Background(), path, kind)
}

// ReadFileContext is ReadFile that stops when ctx is done, even while a
// FIFO blocks its open or its reads.
func ReadFileContext(ctx context.Context, path string, kind Kind) ([]byte, error) {
	f, err := open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > kind.Max {
		return nil, &TooLargeError{Path: path, Kind: kind}
	}
	// A pipe's reads wait in the poller; a past deadline wakes them.
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	b, err := io.ReadAll(NewReader(f, path, kind))
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("reading %s: %w", path, context.Cause(ctx))
	}
	return b, err
}

// open opens path for reading, giving up when ctx is done: opening a FIFO
// blocks until a writer comes, in a system call nothing can interrupt.
// The abandoned open finishes in the background and closes its file.
func open(ctx context.Context, path string) (*os.File, error) {
	if ctx.Done() == nil {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("opening %s: %w", path, context.Cause(ctx))
	}
}

// NewReader returns a reader of r that fails with a *TooLargeError,
// naming path, once r holds more than kind's bound.
func NewReader(r io.Reader, path string, kind Kind) io.Reader {
	return &reader{r: r, left: kind.Max, err: &TooLargeError{Path: path, Kind: kind}}
}

type reader struct {
	r    io.Reader
	left int64 // bytes still allowed; -1 once past the bound
	err  *TooLargeError
}

func (l *reader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.err
	}
	// One byte past the bound tells a file of exactly Max bytes from a
	// larger one.
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		n, l.left = int(l.left), -1
		return n, l.err
	}
	l.left -= int64(n)
	return n, err
}
