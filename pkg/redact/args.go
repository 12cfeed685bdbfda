package redact

import "strings"

// secretFlags take a secret as their value, given as "--flag value" or
// "--flag=value", with one or two dashes. Flags that name where a secret is
// kept (--token-file, --token-env) are not listed: their values are safe
// and tell the reader how the run was authenticated. --token-command is
// in commandFlags: its program is kept, its arguments may hold a password.
var secretFlags = map[string]bool{
	"token":         true,
	"bearer-token":  true,
	"access-token":  true,
	"password":      true,
	"client-secret": true,
	"basic-auth":    true,
	"cookie":        true,
}

// commandFlags take a shell command, recorded as Command redacts it.
var commandFlags = map[string]bool{"token-command": true}

// headerFlags take a "Name: value" header, as in hey and curl.
var headerFlags = map[string]bool{"H": true, "header": true}

// Args returns a copy of a command line (os.Args) that is safe to record:
// the values of --token and similar flags, of secret headers given with
// -H/--header ("Authorization: ...", "Cookie: ..."), of hey's -a
// user:password, and passwords and token parameters inside URLs are
// replaced by placeholders. Everything else is kept as typed. Redacting an
// already redacted command line changes nothing.
func Args(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	out := make([]string, len(args))
	var pending func(string) string // redacts the value following a flag
	for i, a := range args {
		if pending != nil {
			out[i], pending = pending(a), nil
			continue
		}
		out[i], pending = arg(a)
	}
	return out
}

// arg redacts one argument, and says how to redact the next one when this
// is a flag whose value follows it.
func arg(a string) (string, func(string) string) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return URL(a), nil
	}
	name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
	dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
	switch {
	case secretFlags[name]:
		if hasValue {
			return dashes + name + "=" + once(value), nil
		}
		return a, once
	case commandFlags[name]:
		if hasValue {
			return dashes + name + "=" + Command(value), nil
		}
		return a, Command
	case headerFlags[name]:
		if hasValue {
			return dashes + name + "=" + HeaderLine(value), nil
		}
		return a, HeaderLine
	case dashes == "-" && strings.HasPrefix(a, "-H") && len(a) > 2:
		return "-H" + HeaderLine(a[2:]), nil // -H"Authorization: ..."
	case a == "-a":
		return a, userinfo
	}
	if hasValue {
		return dashes + name + "=" + URL(value), nil
	}
	return a, nil
}

// once redacts a value unless it already is a placeholder.
func once(v string) string {
	if IsRedacted(v) {
		return v
	}
	return Value(v)
}

// HeaderLine redacts "Name: value" if Name is a secret header.
func HeaderLine(h string) string {
	name, value, ok := strings.Cut(h, ":")
	if !ok || !IsSecretHeader(name) {
		return h
	}
	lead := value[:len(value)-len(strings.TrimLeft(value, " \t"))]
	return name + ":" + lead + once(strings.TrimLeft(value, " \t"))
}

// userinfo redacts the password of "user:password" (hey's -a).
func userinfo(v string) string {
	user, pass, ok := strings.Cut(v, ":")
	if !ok {
		return v
	}
	return user + ":" + once(pass)
}
