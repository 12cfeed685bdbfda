package auth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Option configures New.
type Option func(*options)

type options struct {
	httpClient    *http.Client
	onError       func(error)
	fileInterval  time.Duration
	commandWait   time.Duration
	retryInterval time.Duration
}

// Defaults for the options.
const (
	// DefaultFileCheckInterval is how often a file source looks at the
	// file's modification time.
	DefaultFileCheckInterval = time.Second
	// DefaultCommandTimeout bounds one run of a token command.
	DefaultCommandTimeout = time.Minute
)

// WithHTTPClient makes OIDC requests use c instead of a client built from
// the spec's CACert and Insecure.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithErrorHandler receives failures of background refreshes (OIDC, a command
// with Refresh). Messages are already scrubbed of secrets. The source keeps
// serving its last good token meanwhile. Default: failures are only visible
// through Token once the token has expired.
func WithErrorHandler(f func(error)) Option { return func(o *options) { o.onError = f } }

// WithFileCheckInterval sets how often a file source stats its file for
// rotation, in the background. Default DefaultFileCheckInterval; 0 checks on
// every Token call instead.
func WithFileCheckInterval(d time.Duration) Option {
	return func(o *options) { o.fileInterval = d }
}

// WithCommandTimeout bounds each run of a token command. Default
// DefaultCommandTimeout.
func WithCommandTimeout(d time.Duration) Option { return func(o *options) { o.commandWait = d } }

// New builds the token source a spec describes and fetches the first token,
// so that a bad spec fails before any load is sent. Background work (OIDC
// renewal, a command's Refresh, watching a file) runs until ctx is done:
// pass a context that lives as long as the run. Errors never contain a
// secret.
func New(ctx context.Context, s *Spec, opts ...Option) (TokenSource, error) {
	o := options{
		fileInterval:  DefaultFileCheckInterval,
		commandWait:   DefaultCommandTimeout,
		retryInterval: time.Second,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.onError == nil {
		o.onError = func(error) {}
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("token source: %w", err)
	}
	return build(ctx, s, o)
}

// build makes the source of a valid spec.
func build(ctx context.Context, s *Spec, o options) (TokenSource, error) {
	switch s.Kind() {
	case "static":
		return newStatic(s.Literal)
	case "env":
		return newEnv(s.Env)
	case "file":
		return newFile(ctx, s.File, o.fileInterval)
	case "command":
		return newCommand(ctx, s, o)
	case "pool":
		return newPool(ctx, s.Pool, o)
	default:
		return newOIDC(ctx, s.OIDC, o)
	}
}

// checkToken rejects values that cannot be a bearer token, without quoting
// them: a token with a line break would also smuggle headers in.
func checkToken(tok string) error {
	if tok == "" {
		return fmt.Errorf("token is empty")
	}
	if i := strings.IndexFunc(tok, func(r rune) bool { return r < ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("token contains a control character at byte %d", i)
	}
	return nil
}

// describe is the Format body shared by the sources: a kind and details that
// are never secret.
func describe(f io.Writer, kind, details string) {
	s := "auth.TokenSource{" + kind
	if details != "" {
		s += " " + details
	}
	_, _ = f.Write([]byte(s + "}"))
}
