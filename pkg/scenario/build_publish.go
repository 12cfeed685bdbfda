package scenario

import (
	"github.com/authbench/authbench/pkg/plan"
)

// publish reads the publish block: what only a file has (its files'
// existence, a timeout given as zero) is checked here, its values by the
// plan layer's rules (plan.Publish.Problems), which settingErrors places
// at the lines recorded here. What it leaves out comes from the
// AUTHBENCH_OPENSEARCH_* variables when the run ends.
func (b *builder) publish(p *plan.Plan, s *publishSpec) *plan.Publish {
	if s == nil {
		return nil
	}
	const path = "publish"
	out := &plan.Publish{URL: s.URL, Index: s.Index, User: s.User}
	for key, set := range map[string]bool{"url": s.URL != "", "index": s.Index != "",
		"password_file": s.PasswordFile != "", "token": s.Token != nil} {
		if set {
			b.give(p, s, path, key)
		}
	}
	if s.URL != "" {
		n := b.nerr
		if b.url(s, path, "url", s.URL); b.nerr > n {
			b.failed[join(path, "url")] = true // refused already: not again by the plan layer
		}
	}
	out.PasswordFile = b.file(s, path, "password_file", s.PasswordFile)
	out.CACert = b.file(s, path, "cacert", s.CACert)
	if s.Token != nil {
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
