package live

import (
	"reflect"
	"strings"
	"testing"
)

// TestScreenRedrawsInPlace drives a screen as a run does, on a terminal
// that understands only what the screen may send, and checks what a
// person would see after each step.
func TestScreenRedrawsInPlace(t *testing.T) {
	type step struct {
		do   func(s *screen)
		want []string
	}
	draw := func(lines ...string) func(*screen) { return func(s *screen) { s.draw(lines, 20) } }
	log := func(p string) func(*screen) { return func(s *screen) { s.log([]byte(p)) } }
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a frame replaces the last", []step{
			{draw("one", "two", "three"), []string{"one", "two", "three"}},
			{draw("uno", "dos"), []string{"uno", "dos"}},
			{draw("a", "b", "c", "d"), []string{"a", "b", "c", "d"}},
		}},
		{"log lines stay above", []step{
			{draw("frame 1", "rate"), []string{"frame 1", "rate"}},
			{log("echo: iteration 1/2\n"), []string{"echo: iteration 1/2", "frame 1", "rate"}},
			{log("half a line"), []string{"echo: iteration 1/2", "frame 1", "rate"}},
			{log(" ended\nand one more\n"), []string{"echo: iteration 1/2", "half a line ended", "and one more", "frame 1", "rate"}},
			{draw("frame 2"), []string{"echo: iteration 1/2", "half a line ended", "and one more", "frame 2"}},
		}},
		{"long lines are cut, not wrapped", []step{
			{draw(strings.Repeat("x", 30), "y"), []string{strings.Repeat("x", 19), "y"}},
			{draw("z"), []string{"z"}},
		}},
		{"erase leaves the terminal as without the view", []step{
			{log("before\n"), []string{"before"}},
			{draw("frame", "rate", "p99"), []string{"before", "frame", "rate", "p99"}},
			{func(s *screen) { s.log([]byte("pending")); s.erase() }, []string{"before", "pending"}},
		}},
		{"after a detach the frame stays and the next goes below", []step{
			{draw("frame 1", "rate"), []string{"frame 1", "rate"}},
			{func(s *screen) { s.w.Write([]byte("^Cstopping\n")); s.detach() }, []string{"frame 1", "rate", "^Cstopping"}},
			{draw("stopping frame"), []string{"frame 1", "rate", "^Cstopping", "stopping frame"}},
			{func(s *screen) { s.erase() }, []string{"frame 1", "rate", "^Cstopping"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := newVT(20, 10)
			s := &screen{w: term}
			for i, st := range tc.steps {
				st.do(s)
				if got := term.screen(); !reflect.DeepEqual(got, st.want) {
					t.Errorf("step %d: screen\n%q\nwant\n%q", i, got, st.want)
				}
				if term.bad != "" {
					t.Fatalf("step %d: %s", i, term.bad)
				}
			}
		})
	}
}

// TestScreenAtTheBottom checks frames drawn on a full terminal: the screen
// scrolls, and no stale frame is left in the scrollback.
func TestScreenAtTheBottom(t *testing.T) {
	term := newVT(20, 4)
	s := &screen{w: term}
	s.log([]byte("l1\nl2\nl3\n"))
	for _, f := range [][]string{{"a1", "a2"}, {"b1", "b2", "b3"}, {"c1"}} {
		s.draw(f, 20)
	}
	s.log([]byte("l4\n"))
	// The three-line frame filled the terminal: the log lines above it
	// scrolled into the history, and only they.
	want, history := []string{"l4", "c1"}, []string{"l1", "l2", "l3"}
	if got := term.screen(); !reflect.DeepEqual(got, want) {
		t.Errorf("screen %q, want %q", got, want)
	}
	if !reflect.DeepEqual(term.scrolled, history) {
		t.Errorf("history %q, want %q (no stale frame)", term.scrolled, history)
	}
}
