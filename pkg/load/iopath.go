package load

import (
	"fmt"
	"os"
)

// IOPath names how an attack's HTTP/1.1 requests reach the socket. Every
// path measures the same things the same way; they differ in system calls
// and scheduler round trips per request, and so in client CPU.
type IOPath string

const (
	// IOAuto picks the fastest path the request and the machine allow.
	IOAuto IOPath = ""
	// IOUring runs each share of the connections on one event loop over
	// io_uring: a round's sends in one submission, a batch of answers per
	// wake, each answer timed by the kernel's receive timestamp (Linux
	// 6.1 or later, where no seccomp profile refuses io_uring).
	IOUring IOPath = "io_uring"
	// IOEpoll runs each share of the connections on one event loop over
	// raw epoll, reading only after readiness (Linux, plain HTTP/1.1).
	IOEpoll IOPath = "epoll"
	// IONetpoll runs one goroutine per connection over Go's net package
	// (its netpoller): TLS, and wherever epoll is not available.
	IONetpoll IOPath = "netpoll"
	// IONetHTTP is net/http's client: HTTP/2 and WithStdClient.
	IONetHTTP IOPath = "net/http"
)

// IOPathEnv, when set, forces a path for attacks whose Attacker was given
// none: an escape hatch and a way to compare paths in a real run.
const IOPathEnv = "AUTHBENCH_IO_PATH"

// ParseIOPath validates a path name ("", "auto", "io_uring", "epoll" or
// "netpoll").
func ParseIOPath(s string) (IOPath, error) {
	switch p := IOPath(s); p {
	case IOAuto, "auto":
		return IOAuto, nil
	case IOUring, IOEpoll, IONetpoll:
		return p, nil
	}
	return IOAuto, fmt.Errorf("io path %q: want auto, io_uring, epoll or netpoll", s)
}

// IOPathFromEnv reads IOPathEnv; unset is IOAuto.
func IOPathFromEnv() (IOPath, error) {
	p, err := ParseIOPath(os.Getenv(IOPathEnv))
	if err != nil {
		return IOAuto, fmt.Errorf("reading %s: %w", IOPathEnv, err)
	}
	return p, nil
}

// WithIOPath forces the HTTP/1.1 client's I/O path. A path the request
// cannot take falls back: io_uring where it is refused to epoll, either
// for TLS or off Linux to IONetpoll; Metrics.IOPath says which ran.
func WithIOPath(p IOPath) Option { return func(a *Attacker) { a.path = p } }

// ioPath is the path an attack on t takes (t nil: net/http).
func (a *Attacker) ioPath(t *target) IOPath {
	switch {
	case a.useStd() || t == nil:
		return IONetHTTP
	case a.path == IONetpoll || t.tls != nil || !epollAvailable():
		return IONetpoll
	case a.path == IOEpoll || !uringAvailable():
		return IOEpoll
	}
	return IOUring
}
