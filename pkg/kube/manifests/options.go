package manifests

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// Options say which stack to build and where it runs.
type Options struct {
	Stack     string // stacks.Stack2x, stacks.Stack3x or stacks.Stack3xOAuth (required)
	Namespace string // default DefaultNamespace
	// Images maps an image name (http-echo, kube-rbac-proxy, oauth2-proxy,
	// envoy, haproxy, authbench for the stand-ins) to its reference (required for each the stack uses).
	Images  map[string]string
	Lab     *Lab // the lab overlay; nil on a user's cluster
	Serving TLS  // the certificate of every TLS listener (required)
	OIDC    OIDC // the 3x stack's identity provider (required for 3x)
	// AuthzAPIQPS and AuthzCache are the kube-auth-proxy stand-in's
	// what-ifs (lab.Config's). Default 0: as the real component.
	AuthzAPIQPS float64
	AuthzCache  time.Duration
	// Authz is the 3x gateway's ext_authz settings (a lab's validated
	// ones). Default: the OpenShift AI gateway's (5s, deny).
	Authz Authz
}

// Authz is how the gateway calls its ext_authz service.
type Authz struct {
	Timeout     time.Duration           // default stacks.DefaultAuthzTimeout
	FailureMode stacks.AuthzFailureMode // default stacks.DefaultAuthzFailureMode
}

func (a Authz) withDefaults() Authz {
	if a.Timeout == 0 {
		a.Timeout = stacks.DefaultAuthzTimeout
	}
	if a.FailureMode == "" {
		a.FailureMode = stacks.DefaultAuthzFailureMode
	}
	return a
}

// Lab is the lab overlay: hostNetwork pods on 127.0.0.1 ports, images
// imported into containerd (imagePullPolicy Never), and the apiserver's
// loopback address for kube-rbac-proxy and the stand-ins (no kube-proxy
// runs).
type Lab struct {
	Ports Ports // port name -> 127.0.0.1 port (see stacks.PortNames)
	// APIServerPort is where the auth pods reach the kube-apiserver on
	// 127.0.0.1: the lab's fault proxy in front of it, or the apiserver.
	APIServerPort int
}

// TLS is a PEM certificate, key and the CA that signed them.
type TLS struct{ Cert, Key, CA []byte }

// OIDC is the identity provider oauth2-proxy verifies bearer JWTs against.
type OIDC struct {
	IssuerURL, ClientID string
	ClientSecret        string // stored in a Secret, never in a pod spec
	CookieSecret        string // 16, 24 or 32 bytes
	CA                  []byte // PEM of the issuer's CA; empty: the system's
}

func (l *Lab) portOf(name string) (int, bool) {
	if l == nil {
		return 0, false
	}
	p, ok := l.Ports[name]
	return p, ok
}

func (o Options) namespace() string {
	if o.Namespace == "" {
		return DefaultNamespace
	}
	return o.Namespace
}

func (o Options) validate() error {
	if _, ok := stacks.Get(o.Stack); !ok {
		return fmt.Errorf("stack %q: want %s", o.Stack, strings.Join(stacks.Names(), ", "))
	}
	if len(o.Serving.Cert) == 0 || len(o.Serving.Key) == 0 {
		return errors.New("manifests: Options.Serving needs a certificate and key")
	}
	if o.Stack == stacks.Stack3x && (o.OIDC.IssuerURL == "" || o.OIDC.ClientID == "") {
		return errors.New("manifests: the 3x stack needs Options.OIDC (issuer URL and client ID)")
	}
	if err := o.checkAuthz(); err != nil {
		return err
	}
	if o.Lab != nil {
		for _, n := range stacks.PortNames(o.Stack) {
			if o.Lab.Ports[n] == 0 {
				return fmt.Errorf("manifests: lab overlay lacks a port for %s", n)
			}
		}
	}
	return nil
}

func (o Options) checkAuthz() error {
	a := o.Authz.withDefaults()
	if err := stacks.CheckAuthzTimeout(a.Timeout); err != nil {
		return fmt.Errorf("manifests: %w", err)
	}
	if _, err := stacks.ParseAuthzFailureMode(string(a.FailureMode)); err != nil {
		return fmt.Errorf("manifests: %w", err)
	}
	return nil
}
