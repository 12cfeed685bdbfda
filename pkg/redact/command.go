package redact

import (
	"regexp"
	"strings"
)

// programName is what a command's first word must look like to be kept:
// a plain name or path, not an assignment (TOKEN=x cmd), a quote or a
// substitution that could hide a credential.
var programName = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// valuePlaceholder is exactly what Value writes, and nothing more.
var valuePlaceholder = regexp.MustCompile(`^(?:[A-Za-z]+ )?<redacted, [0-9]+ chars>$`)

// Command redacts a shell command line for the record: the program keeps
// its name, so the reader sees how the token was obtained ("oc", "gcloud",
// "curl"), and its arguments, where a credential is typed (curl -u
// admin:pw ...), become one placeholder. A command whose first word is
// not a plain program name is redacted whole. Redacting twice changes
// nothing.
func Command(cmd string) string {
	c := strings.TrimSpace(cmd)
	if c == "" || valuePlaceholder.MatchString(c) {
		return c
	}
	prog, args, hasArgs := strings.Cut(c, " ")
	if i := strings.IndexAny(prog, "\t\n"); i >= 0 {
		prog, args, hasArgs = c[:i], c[i+1:], true
	}
	if !programName.MatchString(prog) {
		return Value(c)
	}
	args = strings.TrimSpace(args)
	if !hasArgs || args == "" {
		return prog
	}
	if valuePlaceholder.MatchString(args) {
		return prog + " " + args
	}
	return prog + " " + Value(args)
}
