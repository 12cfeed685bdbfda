package kubeapi

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/internal/capool"
)

type kubeconfig struct {
	CurrentContext string `yaml:"current-context"`
	Contexts       []struct {
		Name    string                         `yaml:"name"`
		Context struct{ Cluster, User string } `yaml:"context"`
	} `yaml:"contexts"`
	Clusters []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			Server   string `yaml:"server"`
			CA       string `yaml:"certificate-authority"`
			CAData   string `yaml:"certificate-authority-data"`
			Insecure bool   `yaml:"insecure-skip-tls-verify"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string `yaml:"name"`
		User struct {
			Cert      string `yaml:"client-certificate"`
			CertData  string `yaml:"client-certificate-data"`
			Key       string `yaml:"client-key"`
			KeyData   string `yaml:"client-key-data"`
			Token     string `yaml:"token"`
			TokenFile string `yaml:"tokenFile"`
		} `yaml:"user"`
	} `yaml:"users"`
}

// FromKubeconfig builds a client from a kubeconfig file's current context
// (client certificates, a token or a token file; no exec plugins).
func FromKubeconfig(path string) (*Client, error) { return FromKubeconfigContext(path, "") }

// FromKubeconfigContext is FromKubeconfig for the named context ("": the
// current one), as kubectl's --context.
func FromKubeconfigContext(path, context string) (*Client, error) {
	b, err := boundedio.ReadFile(path, boundedio.Config)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(b, &kc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if context == "" {
		context = kc.CurrentContext
	}
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == context {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	var server, token string
	tc := &tls.Config{}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		server, tc.InsecureSkipVerify = cl.Cluster.Server, cl.Cluster.Insecure
		ca, err := pemOf(rel(cl.Cluster.CA), cl.Cluster.CAData)
		if err != nil {
			return nil, fmt.Errorf("%s: cluster %s: %w", path, clusterName, err)
		}
		if len(ca) > 0 {
			if tc.RootCAs, err = capool.PEM(ca, "the certificate authority of cluster "+clusterName); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	if server == "" {
		return nil, fmt.Errorf("%s: no server for the context %q", path, context)
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		cert, err1 := pemOf(rel(u.User.Cert), u.User.CertData)
		key, err2 := pemOf(rel(u.User.Key), u.User.KeyData)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: user %s: %v %v", path, userName, err1, err2)
		}
		if len(cert) > 0 {
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("%s: user %s: %w", path, userName, err)
			}
			tc.Certificates = []tls.Certificate{pair}
		}
		token = u.User.Token
		if u.User.TokenFile != "" {
			t, err := boundedio.ReadFile(rel(u.User.TokenFile), boundedio.Secret)
			if err != nil {
				return nil, fmt.Errorf("%s: user %s: %w", path, userName, err)
			}
			token = strings.TrimSpace(string(t))
		}
	}
	return New(server, tc, token), nil
}

func pemOf(file, data string) ([]byte, error) {
	if data != "" {
		return base64.StdEncoding.DecodeString(data)
	}
	if file == "" {
		return nil, nil
	}
	return boundedio.ReadFile(file, boundedio.PEM)
}
