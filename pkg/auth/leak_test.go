package auth

import (
	"fmt"
	"strings"
	"testing"
)

// leakVerbs are the ways a source or spec could end up in a log line.
var leakVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%T %v"}

// assertNoSecret fails if any formatting of the values contains a secret.
func assertNoSecret(t *testing.T, secrets []string, values ...any) {
	t.Helper()
	for _, v := range values {
		for _, verb := range leakVerbs {
			out := fmt.Sprintf(verb, v)
			if verb == "%T %v" {
				out = fmt.Sprintf(verb, v, v)
			}
			for _, s := range secrets {
				if strings.Contains(out, s) || strings.Contains(out, fmt.Sprintf("%x", s)) {
					t.Errorf("Sprintf(%q) of %T contains a secret: %s", verb, v, out)
				}
			}
		}
	}
}

// Every source is built with distinctive secrets; none may appear when the
// source or its spec is printed.
func TestNoSecretInSources(t *testing.T) {
	const (
		static = "S3CRET-static-7f1c"
		env    = "S3CRET-env-93ab"
		file   = "S3CRET-file-5d20"
		cmdTok = "S3CRET-command-c4e8"
	)
	p := newFakeIdP(t)
	p.tokenPrefix = "S3CRET-oidc-access"
	p.secret, p.pass = "S3CRET-client-b7e2", "S3CRET-password-01aa"
	t.Setenv("LEAK_TOKEN", env)
	secrets := []string{static, env, file, cmdTok, p.tokenPrefix, p.secret, p.pass, "rt-1"}
	specs := map[string]*Spec{
		"static":  {Static: true, Literal: static},
		"env":     {Env: "LEAK_TOKEN"},
		"file":    {File: writeFile(t, "tok", file)},
		"command": {Command: "cat " + writeFile(t, "cmd", cmdTok), Refresh: "1h"},
		"oidc":    {OIDC: p.spec(t)},
	}
	for kind, spec := range specs {
		t.Run(kind, func(t *testing.T) {
			src, err := New(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			tok, _ := src.Token(t.Context())
			if !strings.HasPrefix(tok, "S3CRET-") {
				t.Fatalf("Token() = %q, the test's secret was not used", tok)
			}
			assertNoSecret(t, secrets, src, spec, *spec)
		})
	}
}

// Failures carry the reason but never the secret, even when the failing
// thing prints it.
func TestNoSecretInErrors(t *testing.T) {
	const secret = "S3CRET-err-e5f6"
	tests := []struct {
		name   string
		spec   func(t *testing.T) *Spec
		reason string // the error must still say why
	}{
		{
			name:   "static with a line break",
			spec:   func(*testing.T) *Spec { return &Spec{Static: true, Literal: secret + "\nX-Evil: 1"} },
			reason: "control character",
		},
		{
			name: "command fails after printing the token",
			spec: func(*testing.T) *Spec {
				return &Spec{Command: "printf '%s%s' " + secret[:7] + " " + secret[7:] + "; exit 1"}
			},
			reason: "exit status 1",
		},
		{
			name: "command echoes the token on stderr",
			spec: func(t *testing.T) *Spec {
				f := writeFile(t, "tok", secret)
				return &Spec{Command: "cat " + f + "; echo \"rejected $(cat " + f + ")\" >&2; exit 2"}
			},
			reason: "stderr: rejected <redacted",
		},
		{
			name: "command prints the token and a second line",
			spec: func(t *testing.T) *Spec {
				return &Spec{Command: "cat " + writeFile(t, "tok", secret+"\nmore")}
			},
			reason: "control character",
		},
		{
			name: "file token with a line break",
			spec: func(t *testing.T) *Spec {
				return &Spec{File: writeFile(t, "tok", secret+"\nX: y")}
			},
			reason: "control character",
		},
		{
			name: "provider echoes the password",
			spec: func(t *testing.T) *Spec {
				p := newFakeIdP(t)
				p.echo = true
				o := p.spec(t)
				o.PasswordFile = writeFile(t, "pw", secret)
				return &Spec{OIDC: o}
			},
			reason: "Invalid user credentials for password <redacted",
		},
		{
			name: "provider echoes the client secret",
			spec: func(t *testing.T) *Spec {
				p := newFakeIdP(t)
				p.echo = true
				o := p.spec(t)
				o.ClientSecretFile = writeFile(t, "cs", secret)
				return &Spec{OIDC: o}
			},
			reason: "invalid_client",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec(t)
			_, err := New(t.Context(), spec)
			if err == nil {
				t.Fatal("New() succeeded")
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not say %q", err, tt.reason)
			}
			assertNoSecret(t, []string{secret}, err, spec)
		})
	}
}
