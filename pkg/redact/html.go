package redact

import (
	"encoding/json"
	"html"
	"slices"
	"strings"
)

// HTML is Text for a rendered HTML page, where a secret may sit in text,
// in an attribute or in a chart's JSON: each secret is also looked for
// HTML-escaped and JSON-escaped, and whatever is found, secrets and
// patterns alike, becomes Placeholder (after a leading auth scheme),
// which reads the same in each of those places, where Value's brackets
// would read as a tag.
func HTML(page string, secrets ...string) string {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms = append(forms, s, html.EscapeString(s))
		if j, err := json.Marshal(s); err == nil && len(j) > 2 {
			forms = append(forms, string(j[1:len(j)-1]))
		}
	}
	// Longest first, so a secret containing another goes whole.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range slices.Compact(forms) {
		page = strings.ReplaceAll(page, f, Placeholder)
	}
	return replacePatterns(page, htmlValue)
}

// htmlValue is Value's placeholder for HTML: Placeholder, keeping a
// leading auth scheme.
func htmlValue(value string) string {
	if scheme, _, ok := strings.Cut(value, " "); ok && isScheme(scheme) {
		return scheme + " " + Placeholder
	}
	return Placeholder
}
