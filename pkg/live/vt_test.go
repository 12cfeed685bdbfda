package live

import (
	"strconv"
	"strings"
)

// vt is the least of a terminal the screen needs: printable ASCII, CR,
// LF (scrolling at the bottom; a new line, as a tty's default output
// processing, onlcr, makes it), ESC[nA (cursor up) and ESC[K (erase to
// the end of the line). Anything else fails the test that feeds it.
type vt struct {
	w, h     int
	rows     [][]byte
	x, y     int
	scrolled []string // rows scrolled off the top
	bad      string
}

func newVT(w, h int) *vt {
	v := &vt{w: w, h: h}
	for range h {
		v.rows = append(v.rows, []byte(strings.Repeat(" ", w)))
	}
	return v
}

func (v *vt) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\r':
			v.x = 0
		case c == '\n':
			v.x = 0
			v.lf()
		case c == 0x1b:
			i = v.escape(p, i)
		case c >= ' ' && c < 0x7f:
			if v.x >= v.w { // wrap
				v.x = 0
				v.lf()
			}
			v.rows[v.y][v.x] = c
			v.x++
		default:
			v.bad = "control byte " + strconv.Itoa(int(c))
		}
	}
	return len(p), nil
}

func (v *vt) lf() {
	if v.y < v.h-1 {
		v.y++
		return
	}
	v.scrolled = append(v.scrolled, strings.TrimRight(string(v.rows[0]), " "))
	v.rows = append(v.rows[1:], []byte(strings.Repeat(" ", v.w)))
}

// escape applies the CSI sequence at p[i] and returns its last index.
func (v *vt) escape(p []byte, i int) int {
	j := i + 2
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
	}
	if i+1 >= len(p) || p[i+1] != '[' || j >= len(p) {
		v.bad = "unknown escape"
		return j
	}
	n, _ := strconv.Atoi(string(p[i+2 : j]))
	switch p[j] {
	case 'A':
		v.y = max(v.y-max(n, 1), 0)
	case 'K':
		for x := min(v.x, v.w); x < v.w; x++ {
			v.rows[v.y][x] = ' '
		}
	default:
		v.bad = "unknown escape " + string(p[i+1:j+1])
	}
	return j
}

// screen is the visible rows, trailing blanks and blank rows cut.
func (v *vt) screen() []string {
	var out []string
	for _, r := range v.rows {
		out = append(out, strings.TrimRight(string(r), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
