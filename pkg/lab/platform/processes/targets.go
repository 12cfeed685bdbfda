package processes

import (
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// stackTargets describes each stack as a target: its outer URL and its
// layers, from the client inwards, with their own entry points.
func stackTargets(c lab.Config, specs []*spec) []lab.StackTarget {
	url := map[string]string{}
	for _, sp := range specs {
		url[sp.Name] = sp.URL
	}
	var out []lab.StackTarget
	for _, name := range stacks.Names() {
		st, _ := stacks.Get(name)
		if !c.Has(name) {
			continue
		}
		t := lab.StackTarget{Name: st.Target, Stack: name}
		for _, l := range st.Layers() {
			t.Layers = append(t.Layers, lab.Rung{Layer: l, URL: url[l]})
		}
		t.URL = t.Layers[0].URL
		out = append(out, t)
	}
	return out
}

// labNotes say which real component plays which role, for status and reports.
func labNotes(specs []*spec) []string {
	var notes []string
	for _, sp := range specs {
		if sp.Plays != "" {
			notes = append(notes, fmt.Sprintf("%s: %s %s plays %s", sp.Name, sp.Program, sp.Version, sp.Plays))
		}
	}
	for _, sp := range specs {
		switch sp.Name {
		case stacks.HAProxy:
			notes = append(notes, "stack 2x: HAProxy terminates the client's TLS and re-encrypts to the oauth proxy (kube-rbac-proxy serves TLS only); static bearer tokens from --token-auth-file play OpenShift OAuth tokens")
		case stacks.Envoy, stacks.EnvoyOAuth:
			notes = append(notes, stacks.GatewayNote(sp.Name))
		case stacks.OAuth2Proxy:
			notes = append(notes, "stack 3x: oauth2-proxy runs with --upstream=static://200 --skip-jwt-bearer-tokens --force-json-errors, verifying Keycloak JWTs locally against the realm's JWKS; kube-rbac-proxy then does TokenReview (the apiserver verifies the OIDC token) and SubjectAccessReview")
		case stacks.KubeAuthProxyOAuth:
			notes = append(notes, fmt.Sprintf("stack 3x-oauth: kube-auth-proxy cannot be built from the module mirror, so kube-rbac-proxy plays it as the ext_authz service (Envoy ext_authz over TLS), in front of %s answering 200; it validates the opaque sha256~ token with a TokenReview and authorises it with a SubjectAccessReview, then the %s sidecar does both again. Caches (both proxies): %s. Their API clients run at %d QPS, burst %d, instead of client-go's 5/10, so that cache misses measure the API server",
				stacks.AuthzOKOAuth, stacks.KubeRBACProxyOAuth, stacks.KubeRBACProxyCache, stacks.KubeAPIQPS, stacks.KubeAPIBurst))
		}
	}
	return notes
}
