package report

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

// comparedOnPurpose introduces what the sides declare as different.
const comparedOnPurpose = "Compared on purpose:"

// declaredWords says, per side that declares different layers than the
// baseline (analyze.Declared), what is compared on purpose: "layers route
// → oauth-proxy → http-echo (2.x) vs gateway → kube-auth-proxy →
// kube-rbac-proxy → http-echo (3.x); the Server header differs with the
// front layer: (none) vs "nginx/1.22.1"".
func declaredWords(c *analyze.Comparison) []string {
	var out []string
	base := c.BaselineSide().Label
	for _, d := range c.Declared {
		s := fmt.Sprintf("layers %s (%s) vs %s (%s)", strings.Join(d.BaseLayers, " → "), base,
			strings.Join(d.Layers, " → "), c.Sides[d.Side].Label)
		if len(d.Servers) == 2 {
			s += fmt.Sprintf("; the Server header differs with the front layer: %s vs %s", serverWord(d.Servers[0]), serverWord(d.Servers[1]))
		}
		out = append(out, s)
	}
	return out
}

func serverWord(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

// declared says what the sides compare on purpose, before any warning:
// context the reader needs to read the warnings as the silent
// differences they are.
func (m *cmpMD) declared() {
	words := declaredWords(m.c)
	switch len(words) {
	case 0:
		return
	case 1:
		m.printf("**%s** %s.\n\n", comparedOnPurpose, words[0])
		return
	}
	m.printf("**%s**\n\n", comparedOnPurpose)
	for _, w := range words {
		m.printf("- %s\n", w)
	}
	m.printf("\n")
}
