package auth

import (
	"net/url"
	"strings"
)

// secretFlags take a secret as their value, given as "--flag value" or
// "--flag=value", with one or two dashes. Flags that take a place where a
// secret is kept (--token-file, --token-env) are not listed: those are safe.
var secretFlags = map[string]bool{
	"token":         true,
	"bearer-token":  true,
	"access-token":  true,
	"password":      true,
	"client-secret": true,
	"basic-auth":    true,
	"cookie":        true,
}

// headerFlags take a "Name: value" header, as in hey and curl.
var headerFlags = map[string]bool{"H": true, "header": true}

// secretParams are URL query parameters whose values are secrets.
var secretParams = map[string]bool{
	"access_token": true, "id_token": true, "refresh_token": true, "token": true,
	"code": true, "client_secret": true, "password": true,
}

// RedactArgs returns a copy of a command line (os.Args) that is safe to
// record: the values of --token and similar flags, of sensitive headers given
// with -H/--header ("Authorization: ...", "Cookie: ..."), of hey's -a
// user:password, and passwords and token parameters inside URLs are replaced
// by placeholders. Everything else is kept as typed.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	var pending func(string) string // redacts the value following a flag
	for i, a := range args {
		if pending != nil {
			out[i], pending = pending(a), nil
			continue
		}
		out[i], pending = redactArg(a)
	}
	return out
}

// redactArg redacts one argument, and says how to redact the next one when
// this is a flag whose value follows it.
func redactArg(a string) (string, func(string) string) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return redactURL(a), nil
	}
	name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
	dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
	switch {
	case secretFlags[name]:
		if hasValue {
			return dashes + name + "=" + Redact(value), nil
		}
		return a, Redact
	case headerFlags[name]:
		if hasValue {
			return dashes + name + "=" + redactHeaderLine(value), nil
		}
		return a, redactHeaderLine
	case dashes == "-" && strings.HasPrefix(a, "-H") && len(a) > 2:
		return "-H" + redactHeaderLine(a[2:]), nil // -H"Authorization: ..."
	case a == "-a":
		return a, redactUserinfo
	}
	if hasValue {
		return dashes + name + "=" + redactURL(value), nil
	}
	return a, nil
}

// redactHeaderLine redacts "Name: value" if Name is a sensitive header.
func redactHeaderLine(h string) string {
	name, value, ok := strings.Cut(h, ":")
	if !ok || !IsSensitiveHeader(strings.TrimSpace(name)) {
		return h
	}
	lead := value[:len(value)-len(strings.TrimLeft(value, " \t"))]
	return name + ":" + lead + Redact(strings.TrimLeft(value, " \t"))
}

// redactUserinfo redacts the password of "user:password" (hey's -a).
func redactUserinfo(v string) string {
	user, pass, ok := strings.Cut(v, ":")
	if !ok {
		return v
	}
	return user + ":" + Redact(pass)
}

// redactURL hides a URL's password and secret query (or fragment)
// parameters; other strings are returned unchanged.
func redactURL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redactedParam)
		changed = true
	}
	if q, ok := redactParams(u.RawQuery); ok {
		u.RawQuery, changed = q, true
	}
	if f, ok := redactParams(u.Fragment); ok {
		u.Fragment, u.RawFragment, changed = f, "", true
	}
	if !changed {
		return s
	}
	return u.String()
}

// redactedParam stands for a secret inside a URL, where the spaces and
// brackets of Redact's placeholder would be escaped.
const redactedParam = "REDACTED"

// redactParams redacts secret values in "a=1&b=2", keeping the order.
func redactParams(raw string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if ok && err == nil && secretParams[strings.ToLower(key)] {
			parts[i] = k + "=" + redactedParam
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}
