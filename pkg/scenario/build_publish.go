package scenario

import (
	"net/url"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/redact"
)

// publish checks the publish block; what it leaves out comes from the
// AUTHBENCH_OPENSEARCH_* variables when the run ends.
func (b *builder) publish(s *publishSpec) *plan.Publish {
	if s == nil {
		return nil
	}
	const path = "publish"
	out := &plan.Publish{URL: s.URL, Index: s.Index, User: s.User}
	if s.URL != "" {
		b.url(s, path, "url", s.URL)
		if u, err := url.Parse(s.URL); err == nil && u.User != nil && !hasPassword(u) {
			b.errAt(s, path, "url", "%q names a user: put no credentials in the URL; use user: and password_file:", u.Redacted())
		} else if err == nil && (u.RawQuery != "" || u.Fragment != "") {
			b.errAt(s, path, "url", "%q: want no query or fragment: give credentials with user: or token:", redact.URL(s.URL))
		}
	}
	if s.Index != "" {
		if err := publish.CheckIndex(s.Index); err != nil {
			b.errAt(s, path, "index", "%v", err)
		}
	}
	out.PasswordFile = b.file(s, path, "password_file", s.PasswordFile)
	out.CACert = b.file(s, path, "cacert", s.CACert)
	if s.PasswordFile != "" && s.User == "" {
		b.errAt(s, path, "password_file", "a password file needs a user: add user:")
	}
	if s.Token != nil {
		if s.User != "" {
			b.errAt(s, path, "token", "give user or token, not both")
		}
		out.Token = b.token(s.Token, join(path, "token"))
	}
	if s.Timeout != nil {
		if *s.Timeout <= 0 {
			b.errAt(s, path, "timeout", "must be positive, got %s", s.Timeout.std())
		}
		out.Timeout = plan.Duration(*s.Timeout)
	}
	return out
}
