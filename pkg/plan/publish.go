package plan

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/redact"
)

// Publish is where a run is published: the scenario's publish: block,
// which pkg/publish's Config reads. It holds no secret: the password comes
// from a file or $AUTHBENCH_OPENSEARCH_PASSWORD, a token from a source.
type Publish struct {
	// URL of the server, http(s)://host:port. Default
	// $AUTHBENCH_OPENSEARCH_URL.
	URL string `json:"url,omitempty"`
	// Index is written to. Default $AUTHBENCH_OPENSEARCH_INDEX, else
	// "authbench-runs".
	Index string `json:"index,omitempty"`
	// User authenticates with the password of PasswordFile, else of
	// $AUTHBENCH_OPENSEARCH_PASSWORD. Default $AUTHBENCH_OPENSEARCH_USER.
	User         string `json:"user,omitempty"`
	PasswordFile string `json:"password_file,omitempty"`
	// Token is a bearer token source, instead of User. Default none.
	Token *auth.Spec `json:"token,omitempty"`
	// CACert is a PEM file of CAs to trust. Default: the system's.
	CACert string `json:"cacert,omitempty"`
	// Timeout bounds each request. Default 30s.
	Timeout Duration `json:"timeout,omitempty"`
}

// PublishWords spell a publish block's settings the way the user gave
// them, so that one set of rules speaks a scenario's keys or the
// --opensearch flags.
type PublishWords struct {
	// User, Token and PasswordFile name those settings.
	User, Token, PasswordFile string
	// NoUser is the advice for a password file given without a user.
	NoUser string
}

// Words of a scenario's publish: block, and of the --opensearch flags.
var (
	ScenarioPublishWords = PublishWords{User: "user:", Token: "token:", PasswordFile: "password_file:", NoUser: "add user:"}
	FlagPublishWords     = PublishWords{User: "--opensearch-user", Token: "a token source",
		PasswordFile: "a password file or $AUTHBENCH_OPENSEARCH_PASSWORD", NoUser: "given without --opensearch-user"}
)

// PublishProblem is one impossible value of a publish block, under its
// key (url, index, password_file, token).
type PublishProblem struct {
	Key, Msg string
}

// Problems lists the publish block's impossible values, worded with w:
// the one set of rules a scenario's block and the --opensearch flags
// both follow. An empty URL is not checked (the environment may give it).
func (p *Publish) Problems(w PublishWords) []PublishProblem {
	var out []PublishProblem
	add := func(key, format string, a ...any) {
		out = append(out, PublishProblem{Key: key, Msg: fmt.Sprintf(format, a...)})
	}
	if p.URL != "" {
		if err := checkPublishURL(p.URL, w); err != nil {
			add("url", "%v", err)
		}
	}
	if err := CheckIndex(p.Index); err != nil {
		add("index", "%v", err)
	}
	if p.PasswordFile != "" && p.User == "" {
		add("password_file", "a password file needs a user: %s", w.NoUser)
	}
	if p.Token != nil && p.User != "" {
		add("token", "give %s or %s, not both", strings.TrimSuffix(w.User, ":"), strings.TrimSuffix(w.Token, ":"))
	}
	return out
}

// checkPublishURL says why raw cannot be a server's URL, or nil: it must
// be http(s)://host:port[/path], with no credentials and no query (which
// could carry one into messages and run.json).
func checkPublishURL(raw string, w PublishWords) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("%q: want http(s)://host:port", redact.URL(raw))
	case u.User != nil:
		return fmt.Errorf("%q names a user: put no credentials in the URL; use %s and %s", u.Redacted(), w.User, w.PasswordFile)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: want no query or fragment: give credentials with %s or %s", redact.URL(raw), w.User, w.Token)
	}
	return nil
}

// CheckIndex says why name cannot be an index name, or nil.
func CheckIndex(name string) error {
	if strings.ContainsAny(name, `\/*?"<>| ,#:`) || name != strings.ToLower(name) {
		return fmt.Errorf("%q: lowercase, without \\ / * ? \" < > | , # : or spaces", name)
	}
	return nil
}

// FieldPublish is the publish block, as FieldError names it (its keys
// follow: publish.url, ...).
const FieldPublish = "publish"

// publish checks the publish block (publish.Config checks the flags'
// with the same rules).
func (v *validation) publish() {
	if v.q.Publish == nil {
		return
	}
	for _, pr := range v.q.Publish.Problems(ScenarioPublishWords) {
		v.add(FieldPublish+"."+pr.Key, "%s", pr.Msg)
	}
}
