package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/authbench/authbench/pkg/redact"
)

// Output limits for a token command: a token is small, and only the start of
// an error message is useful.
const (
	maxCommandStdout = 1 << 20
	maxCommandStderr = 2 << 10
)

// commandSource serves the trimmed stdout of a shell command, such as
// `oc whoami -t`, optionally re-run on an interval in the background.
type commandSource struct {
	command string
	every   time.Duration
	timeout time.Duration
	tok     atomic.Pointer[string]
}

func newCommand(ctx context.Context, s *Spec, o options) (*commandSource, error) {
	c := &commandSource{command: s.Command, timeout: o.commandWait}
	if s.Refresh != "" {
		c.every, _ = time.ParseDuration(s.Refresh) // checked by Validate
	}
	tok, err := c.run(ctx)
	if err != nil {
		return nil, err
	}
	c.tok.Store(&tok)
	if c.every > 0 {
		go c.refresh(ctx, o.onError)
	}
	return c, nil
}

// run executes the command once. Its stdout is the token, so a failure
// reports stderr (with anything stdout printed scrubbed from it) and never
// stdout.
func (c *commandSource) run(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxCommandStdout, maxCommandStderr
	cmd := exec.CommandContext(ctx, "sh", "-c", c.command)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	err := cmd.Run()
	out := stdout.String()
	tok := strings.TrimSpace(out)
	msg := redact.Text(strings.TrimSpace(stderr.String()), out, tok)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", redact.Error(fmt.Errorf("running token command: %w%s", err, stderrSuffix(msg)), out, tok)
	}
	if tok == "" {
		return "", fmt.Errorf("running token command: it printed nothing on stdout%s", stderrSuffix(msg))
	}
	if stdout.truncated {
		return "", errors.New("running token command: stdout is too long to be a token")
	}
	if err := checkToken(tok); err != nil {
		return "", fmt.Errorf("running token command: %w", err)
	}
	return tok, nil
}

func stderrSuffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": stderr: " + msg
}

// refresh re-runs the command every interval until ctx is done. A failed run
// keeps the previous token.
func (c *commandSource) refresh(ctx context.Context, onError func(error)) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		tok, err := c.run(ctx)
		if err != nil {
			if ctx.Err() == nil {
				onError(err)
			}
			continue
		}
		c.tok.Store(&tok)
	}
}

// Token returns the command's latest output.
func (c *commandSource) Token(context.Context) (string, error) { return *c.tok.Load(), nil }

// Kind is "command".
func (c *commandSource) Kind() string { return "command" }

// Format describes the source; the command line is left out in case it
// carries a credential.
func (c *commandSource) Format(f fmt.State, _ rune) {
	d := ""
	if c.every > 0 {
		d = "every " + c.every.String()
	}
	describe(f, "command", d)
}

// limitedBuffer keeps the first max bytes written and drops the rest, so a
// chatty command cannot exhaust memory.
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.truncated = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
