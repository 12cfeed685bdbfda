package pods

import (
	"context"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"os"
	"path"
	"strings"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// material is the Secret's content: the agent's Config and the files it
// names. Tokens and token-source credentials exist only here and in
// memory.
type material struct {
	files map[string][]byte
	cfg   Config
	// tokens are the values to search for in a leak check (tests).
	tokens []string
}

// buildMaterial resolves what each target's token source needs in a pod.
// A command, env, literal or file token is got once here and passed; an
// OIDC source's credentials are passed so that each pod runs the grant
// and refreshes its own token; a file under the pod's ServiceAccount
// directory is the pod's own projected token and passes as it is.
func buildMaterial(ctx context.Context, targets []plan.Target, client plan.Client) (*material, error) {
	m := &material{files: map[string][]byte{}}
	c, err := m.clientFiles(client)
	if err != nil {
		return nil, err
	}
	m.cfg.Client = c
	got := map[*auth.Spec]*auth.Spec{}
	for i, t := range targets {
		tc := TargetConfig{Name: t.Name, Method: t.Method, URL: t.URL, Host: t.Host, Body: t.Body}
		for _, h := range t.Headers {
			tc.Header = append(tc.Header, [2]string{h.Name, h.Value})
		}
		if t.Token != nil && t.Token.Kind() != "none" {
			if s, ok := got[t.Token]; ok {
				tc.Token = s
			} else if tc.Token, err = m.token(ctx, i, t.Token); err != nil {
				return nil, fmt.Errorf("target %q: %w", t.Name, err)
			}
			got[t.Token] = tc.Token
		}
		m.cfg.Targets = append(m.cfg.Targets, tc)
	}
	return m, nil
}

// put stores a file in the Secret and returns its path in the pod.
func (m *material) put(name string, b []byte) string {
	m.files[name] = b
	return path.Join(SecretDir, name)
}

func (m *material) token(ctx context.Context, i int, s *auth.Spec) (*auth.Spec, error) {
	switch {
	case s.File != "" && strings.HasPrefix(path.Clean(s.File), kubeapi.ServiceAccountDir):
		return &auth.Spec{File: s.File}, nil
	case s.OIDC != nil:
		return m.oidc(i, s.OIDC)
	}
	src, err := auth.New(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("getting token (%s): %w", s.Kind(), err)
	}
	tok, err := src.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting token (%s): %w", s.Kind(), err)
	}
	m.tokens = append(m.tokens, tok)
	return &auth.Spec{File: m.put(fmt.Sprintf("token-%d", i), []byte(tok))}, nil
}

func (m *material) oidc(i int, o *auth.OIDC) (*auth.Spec, error) {
	c := *o
	for _, f := range []struct {
		what      string
		env, file *string
	}{{"client-secret", &c.ClientSecretEnv, &c.ClientSecretFile}, {"password", &c.PasswordEnv, &c.PasswordFile}} {
		v, err := secretValue(f.what, *f.env, *f.file)
		if err != nil {
			return nil, err
		}
		*f.env, *f.file = "", ""
		if v != "" {
			*f.file = m.put(fmt.Sprintf("oidc-%d-%s", i, f.what), []byte(v))
			m.tokens = append(m.tokens, v)
		}
	}
	if c.CACert != "" {
		b, err := boundedio.ReadFile(c.CACert, boundedio.PEM)
		if err != nil {
			return nil, fmt.Errorf("oidc: reading cacert: %w", err)
		}
		c.CACert = m.put(fmt.Sprintf("oidc-%d-ca.crt", i), b)
	}
	return &auth.Spec{OIDC: &c}, nil
}

func secretValue(what, env, file string) (string, error) {
	switch {
	case env != "":
		v := strings.TrimRight(os.Getenv(env), "\r\n")
		if v == "" {
			return "", fmt.Errorf("oidc: reading %s: environment variable %s is empty or not set", what, env)
		}
		return v, nil
	case file != "":
		b, err := boundedio.ReadFile(file, boundedio.Secret)
		if err != nil {
			return "", fmt.Errorf("oidc: reading %s: %w", what, err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return "", nil
}

// clientFiles copies the client's CA, certificate and key into the Secret.
func (m *material) clientFiles(c plan.Client) (plan.Client, error) {
	for _, f := range []struct {
		name string
		p    *string
	}{{"client-ca.crt", &c.CACert}, {"client.crt", &c.Cert}, {"client.key", &c.Key}} {
		if *f.p == "" {
			continue
		}
		b, err := boundedio.ReadFile(*f.p, boundedio.PEM)
		if err != nil {
			return c, fmt.Errorf("reading %s for the pods: %w", *f.p, err)
		}
		*f.p = m.put(f.name, b)
	}
	return c, nil
}
