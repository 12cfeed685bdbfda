package live

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// screen keeps a block of lines at the bottom of a terminal: each draw
// moves the cursor back over the block and writes the new block over it
// in one write, so the frame never tears; log lines are written where
// the block was and the block below them. It uses two ANSI sequences
// every terminal emulator knows (cursor up, erase to end of line) and
// never switches the terminal's mode, so Ctrl-C stays a signal
// (pkg/cli/signals.go).
type screen struct {
	mu      sync.Mutex
	w       io.Writer
	lines   []string // the block on screen
	partial []byte   // a log line not yet ended
	width   int      // the width it was last drawn at
}

// draw replaces the block with lines, at width columns.
func (s *screen) draw(lines []string, width int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rewrite(nil, fit(lines, width), width)
}

// erase removes the block (and ends a pending log line).
func (s *screen) erase() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var above []string
	if len(s.partial) > 0 {
		above = []string{string(s.partial)}
		s.partial = nil
	}
	s.rewrite(above, nil, s.width)
}

// detach leaves the block on screen as it is: something else wrote
// below it (the terminal's ^C, the signal's message), so the next draw
// starts afresh where the cursor is.
func (s *screen) detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = nil
}

// log writes complete lines of p above the block.
func (s *screen) log(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	i := bytes.LastIndexByte(s.partial, '\n')
	if i < 0 {
		return
	}
	above := strings.Split(string(s.partial[:i]), "\n")
	s.partial = append(s.partial[:0], s.partial[i+1:]...)
	s.rewrite(above, s.lines, s.width)
}

// rewrite goes back over the block, writes the lines above (log lines,
// which stay) and the new block, and blanks the rows the old block took
// beyond them, in one write. It erases line by line, never to the end of
// the screen: some terminals (tmux) keep a screen cleared from its top
// in their scrollback, which would fill it with stale frames.
func (s *screen) rewrite(above, block []string, width int) {
	var b bytes.Buffer
	old := rows(s.lines, width)
	b.WriteByte('\r')
	if old > 0 {
		fmt.Fprintf(&b, "\033[%dA", old)
	}
	for _, l := range above {
		b.WriteString(l)
		b.WriteString("\033[K\n")
	}
	for _, l := range block {
		b.WriteString(l)
		b.WriteString("\033[K\n")
	}
	if pad := old - rows(above, width) - len(block); pad > 0 {
		b.WriteString(strings.Repeat("\033[K\n", pad))
		fmt.Fprintf(&b, "\033[%dA", pad)
	}
	s.lines, s.width = block, width
	s.w.Write(b.Bytes())
}

// rows is how many terminal rows lines take at width columns.
func rows(lines []string, width int) int {
	n := 0
	for _, l := range lines {
		c := utf8.RuneCountInString(l)
		if width <= 0 || c <= width {
			n++
			continue
		}
		n += (c + width - 1) / width
	}
	return n
}

// fit cuts every line to width-1 columns, so that none wraps: a line
// filling the last column leaves the cursor waiting to wrap, where the
// erase-to-end-of-line that follows would take the last character.
func fit(lines []string, width int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cut(l, width-1)
	}
	return out
}

func cut(l string, width int) string {
	if width <= 0 || utf8.RuneCountInString(l) <= width {
		return l
	}
	r := []rune(l)
	return string(r[:width])
}

// logWriter is View.Log.
type logWriter struct{ s *screen }

func (l logWriter) Write(p []byte) (int, error) {
	l.s.log(p)
	return len(p), nil
}
