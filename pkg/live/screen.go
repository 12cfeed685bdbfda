package live

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// screen keeps a block of lines at the bottom of a terminal: each draw
// moves the cursor back over the block, clears to the end of the screen
// and writes the new block in one write, so the frame never tears; log
// lines are written where the block was and the block below them. It
// uses three ANSI sequences every terminal emulator knows (cursor up,
// erase to end of line, erase to end of screen) and never switches the
// terminal's mode, so Ctrl-C stays a signal (pkg/cli/signals.go).
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
	var b bytes.Buffer
	s.clear(&b, width)
	s.lines, s.width = fit(lines, width), width
	s.put(&b)
	s.w.Write(b.Bytes())
}

// erase removes the block (and ends a pending log line).
func (s *screen) erase() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	s.clear(&b, s.width)
	if len(s.partial) > 0 {
		b.Write(s.partial)
		b.WriteByte('\n')
		s.partial = nil
	}
	s.lines = nil
	s.w.Write(b.Bytes())
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
	var b bytes.Buffer
	s.clear(&b, s.width)
	b.Write(s.partial[:i+1])
	s.partial = append(s.partial[:0], s.partial[i+1:]...)
	s.put(&b)
	s.w.Write(b.Bytes())
}

// clear moves to the block's first row and erases to the end of the
// screen. Lines longer than the width (the terminal narrowed since) take
// more rows.
func (s *screen) clear(b *bytes.Buffer, width int) {
	n := rows(s.lines, width)
	b.WriteByte('\r')
	if n > 0 {
		fmt.Fprintf(b, "\033[%dA\033[J", n)
	}
}

func (s *screen) put(b *bytes.Buffer) {
	for _, l := range s.lines {
		b.WriteString(l)
		b.WriteString("\033[K\n")
	}
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
