package scenario

import (
	"fmt"
	"sort"
	"strings"
)

// maxErrors bounds how many problems one file reports: past that, the
// rest are usually consequences of the first ones.
const maxErrors = 50

// Error is one problem in a scenario file, at a line and a field.
type Error struct {
	// File is the scenario's name as given to Load or Parse.
	File string
	// Line is 1-based; 0 when the problem has no single place.
	Line int
	// Field is the path of the field, such as "targets[0].token.oidc.issuer";
	// empty for problems with the file as a whole.
	Field string
	// Msg says what is wrong and, where it can, what to do.
	Msg string
}

// Error formats as "file:line: field: message", like a compiler.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one scenario file, in line order. Load
// and Parse report all of them at once (up to 50), so that one edit can fix
// them all.
type Errors []*Error

// Error is one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sorted orders problems by line, keeping the order of discovery within a
// line, and drops exact repeats (an alias decoded twice).
func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Line < es[j].Line })
	out := es[:0]
	seen := map[Error]bool{}
	for _, e := range es {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	return out
}

// suggest returns the candidate closest to a misspelt key, or "" if none is
// close: same letters ignoring case, "-" and "_", or a small edit distance.
func suggest(key string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 0
	for _, c := range candidates {
		if norm(c) == norm(key) {
			return c
		}
		d := editDistance(strings.ToLower(key), c)
		if d <= max(1, min(len(key), len(c))/3) && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
