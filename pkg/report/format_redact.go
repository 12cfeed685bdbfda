package report

import (
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
)

// minSecretLen keeps the output scrubber from rewriting short, common strings.
const minSecretLen = 6

// redactHeader returns a header's printable value.
func redactHeader(h plan.Header) string { return redact.Header(h.Name, h.Value) }

// redactURL hides a URL's password and secret parameters (redact.URL).
func redactURL(s string) string { return redact.URL(s) }

// redactArgs redacts a command line (redact.Args), in case one was
// recorded before redaction.
func redactArgs(args []string) []string { return redact.Args(args) }

// scrub replaces every secret in s, and anything shaped like a JWT, a
// bearer credential or a URL password. It is the last line of defence: the
// renderers already print only redacted values, but an error sample or a
// command line could still echo a token.
func scrub(s string, secrets []string) string { return redact.Text(s, secrets...) }

// secretsOf lists every secret an in-memory run may still hold: literal
// tokens, secret header values and URL credentials. A run handed over
// straight from the runner has not been through JSON, so its headers are
// not redacted yet.
func secretsOf(run *results.Run) []string {
	var out []string
	add := func(ss ...string) {
		for _, s := range ss {
			if s = strings.TrimSpace(s); len(s) >= minSecretLen {
				out = append(out, s)
			}
		}
	}
	addHeaders := func(hs []plan.Header) {
		for _, h := range hs {
			add(redact.HeaderSecrets(h.Name, h.Value)...)
		}
	}
	for _, t := range run.Plan.Targets {
		if t.Token != nil {
			add(t.Token.Literal)
		}
		addHeaders(t.Headers)
		add(redact.URLSecrets(t.URL)...)
		for _, r := range t.Rungs {
			if r.Token != nil {
				add(r.Token.Literal)
			}
			addHeaders(r.Headers)
			add(redact.URLSecrets(r.URL)...)
		}
	}
	// Longest first, so a token is not half-replaced by a shorter secret
	// that happens to be its prefix.
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(out)
}
