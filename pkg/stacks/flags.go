package stacks

import "strconv"

// OAuth2ProxyArgs are oauth2-proxy's flags as kube-auth-proxy's stand-in
// on every platform: it verifies bearer JWTs itself and answers a 200 of
// its own for each request it lets through (the ext_authz service's
// answer), JSON errors, no ping logs.
var OAuth2ProxyArgs = []string{"--email-domain=*", "--insecure-oidc-allow-unverified-email=true",
	"--upstream=static://200", "--skip-jwt-bearer-tokens=true", "--force-json-errors=true",
	"--reverse-proxy=true", "--silence-ping-logging=true"}

// OAuth2ProxyCookieEnv is the variable oauth2-proxy reads its cookie
// secret from: through the environment, the secret is in no process list
// or pod spec.
const OAuth2ProxyCookieEnv = "OAUTH2_PROXY_COOKIE_SECRET"

// KubeAPIRateArgs are the 3x-oauth proxies' API client rate flags: every
// request with a new token is a review round trip, and the client must not
// be the bottleneck (see KubeAPIQPS).
func KubeAPIRateArgs() []string {
	return []string{"--kube-api-qps=" + strconv.Itoa(KubeAPIQPS), "--kube-api-burst=" + strconv.Itoa(KubeAPIBurst)}
}
