package redact

import (
	"regexp"
	"strings"
)

// urlPattern finds a URL inside free text: a scheme, "://" and what
// follows up to a space, a quote or an angle bracket (Go quotes the URL of
// a client error, `Get "http://...": ...`).
var urlPattern = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")

// URLs redacts every URL inside text as URL does, including ones the
// standard parser refuses (a bad escape, a bad port): such a URL is what
// a client's error quotes back, token parameters and all.
func URLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return urlPattern.ReplaceAllStringFunc(text, urlText)
}

// urlText redacts one URL without parsing it: the password of its
// userinfo and the values of secret query and fragment parameters. It
// splits the URL where net/url does (the authority ends at the first "/",
// "?" or "#"; the userinfo at the authority's last "@"), so that whatever
// the standard parser would read as a password is redacted here too.
func urlText(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	head, rest := s[:i+3], s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		if c := strings.Index(authority[:at], ":"); c >= 0 && authority[c+1:at] != Placeholder {
			authority = authority[:c+1] + Placeholder + authority[at:]
		}
	}
	beforeFrag, frag, hasFrag := strings.Cut(tail, "#")
	path, query, hasQuery := strings.Cut(beforeFrag, "?")
	out := head + authority + path
	if hasQuery {
		query, _ = params(query)
		out += "?" + query
	}
	if hasFrag {
		frag, _ = params(frag)
		out += "#" + frag
	}
	return out
}
