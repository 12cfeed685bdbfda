package scenario

import (
	"fmt"
	"slices"
)

// Hints for keys that are right in spirit but in the wrong place.

func (*fileSpec) hint(key string) string {
	for _, sec := range []struct {
		name string
		keys []string
	}{
		{"load", keysOf(loadSpec{})},
		{"client", keysOf(clientSpec{})},
		{"slo", keysOf(sloSpec{})},
	} {
		if slices.Contains(sec.keys, key) {
			return fmt.Sprintf("did you mean %q? %s belongs under %s:", sec.name+"."+key, key, sec.name)
		}
	}
	if slices.Contains(keysOf(targetSpec{}), key) {
		return fmt.Sprintf("%s belongs to a target: targets: [{url: ..., %s: ...}]", key, key)
	}
	if key == "target" {
		return `did you mean "targets"? it is a list`
	}
	return ""
}

func (*targetSpec) hint(key string) string {
	switch {
	case slices.Contains(keysOf(loadSpec{}), key):
		return fmt.Sprintf("load is shared by all targets: put %s under the top-level load:", key)
	case slices.Contains(keysOf(clientSpec{}), key):
		return fmt.Sprintf("the client is shared by all targets: put %s under the top-level client:", key)
	case key == "authorization" || key == "bearer":
		return "use token: {env: NAME} (or file, command, oidc) to send a bearer token"
	}
	return ""
}

func (*tokenSpec) hint(key string) string {
	switch {
	case slices.Contains([]string{"value", "token", "literal", "static", "bearer"}, key):
		return "a scenario file never holds a token: use env, file or command"
	case slices.Contains(keysOf(oidcSpec{}), key):
		return fmt.Sprintf("%s belongs under oidc:", key)
	}
	return ""
}

func (*tokenSpec) typeHint() string {
	return "a mapping such as {env: TOKEN}, {file: path}, {command: ...} or {oidc: {...}} (a scenario file never holds a token itself)"
}

func (*oidcSpec) hint(key string) string {
	switch key {
	case "password":
		return "a scenario file never holds a password: use password_env or password_file"
	case "client_secret", "secret":
		return "a scenario file never holds a secret: use client_secret_env or client_secret_file"
	case "scope":
		return `did you mean "scopes"? it is a list`
	}
	return ""
}
