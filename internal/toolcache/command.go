package toolcache

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// command is one external program run by a step, its output going to the
// step's log file rather than the terminal.
type command struct {
	dir  string
	env  []string // added to os.Environ()
	name string
	args []string
}

// String is the command as a shell would take it, for logs and errors.
func (c command) String() string {
	words := []string{c.name}
	for _, a := range c.args {
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			a = strconv.Quote(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// run executes c, appending "$ command" and its output to log.
func (c command) run(ctx context.Context, log io.Writer) error {
	_, err := c.runCPU(ctx, log)
	return err
}

// runCPU is run that also returns the CPU time c and the children it waited
// for (go build's compilers) used: wall time on a shared machine says little.
func (c command) runCPU(ctx context.Context, log io.Writer) (time.Duration, error) {
	fmt.Fprintf(log, "$ %s\n", c)
	cmd := exec.CommandContext(ctx, c.name, c.args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdout = log
	cmd.Stderr = log
	err := cmd.Run()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		fmt.Fprintf(log, "# %s: cpu %s\n", filepath.Base(c.name), roundDur(cpu))
	}
	if err != nil {
		if ctx.Err() != nil {
			return cpu, fmt.Errorf("%s: %w", c.name, ctx.Err())
		}
		return cpu, fmt.Errorf("%s: %w", c, err)
	}
	return cpu, nil
}

// logTail returns the last n lines of a log file, indented, for an error
// message that shows the cause without sending the user hunting.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString("    ")
		sb.Write(l)
		sb.WriteByte('\n')
	}
	return sb.String()
}
