package redact

import (
	"net/url"
	"strings"
)

// HeaderSecrets lists the secret parts of a header, for a scrubber: the
// whole value and, after an auth scheme, the credential alone. Nothing for
// ordinary headers.
func HeaderSecrets(name, value string) []string {
	if !IsSecretHeader(name) || IsRedacted(value) {
		return nil
	}
	out := []string{value}
	if _, rest, ok := strings.Cut(value, " "); ok {
		out = append(out, rest)
	}
	return out
}

// URLSecrets lists the secrets a URL holds, for a scrubber: its password
// and the values of its secret query and fragment parameters.
func URLSecrets(s string) []string {
	u, err := url.Parse(s)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != Placeholder {
		out = append(out, p)
	}
	for _, raw := range []string{u.RawQuery, u.Fragment} {
		q, err := url.ParseQuery(raw)
		if err != nil {
			continue
		}
		for k, vs := range q {
			if isSecretParam(k) {
				for _, v := range vs {
					if v != Placeholder {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}
