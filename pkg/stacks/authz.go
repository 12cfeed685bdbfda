package stacks

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// The gateway's ext_authz settings as the OpenShift AI gateway sets them
// for kube-auth-proxy (opendatahub-operator's EnvoyFilter, see
// templates/envoy.yaml.tmpl): `lab up --authz-timeout` and
// `--authz-failure-mode` change them.
const (
	// DefaultAuthzTimeout is GatewayConfig.spec.authProxyTimeout's default
	// (getGatewayAuthProxyTimeout: 5s), the ext_authz http_service timeout.
	DefaultAuthzTimeout = 5 * time.Second
	// MaxAuthzTimeout bounds --authz-timeout: a longer call is no
	// gateway's setting, and the lab's readiness would wait that long.
	MaxAuthzTimeout = 10 * time.Minute
)

// AuthzFailureMode is what the gateway does with a request whose ext_authz
// call failed or timed out: deny it (Envoy's status_on_error, 403) or let
// it through (failure_mode_allow).
type AuthzFailureMode string

// The failure modes; the operator leaves failure_mode_allow unset, so
// Envoy's default, deny.
const (
	AuthzFailDeny  AuthzFailureMode = "deny"
	AuthzFailAllow AuthzFailureMode = "allow"
	// DefaultAuthzFailureMode is the operator's (and Envoy's) default.
	DefaultAuthzFailureMode = AuthzFailDeny
)

// ParseAuthzFailureMode reads "deny" or "allow".
func ParseAuthzFailureMode(s string) (AuthzFailureMode, error) {
	switch m := AuthzFailureMode(strings.ToLower(strings.TrimSpace(s))); m {
	case AuthzFailDeny, AuthzFailAllow:
		return m, nil
	}
	return "", fmt.Errorf("authz failure mode %q: want %s or %s", s, AuthzFailDeny, AuthzFailAllow)
}

// CheckAuthzTimeout accepts a timeout Envoy can take: positive, whole
// milliseconds (Envoy's Duration here has millisecond meaning), at most
// MaxAuthzTimeout.
func CheckAuthzTimeout(d time.Duration) error {
	if d <= 0 || d > MaxAuthzTimeout || d%time.Millisecond != 0 {
		return fmt.Errorf("authz timeout %s: want whole milliseconds from 1ms to %s", d, MaxAuthzTimeout)
	}
	return nil
}

// GatewayDetailsHeader is the response header the lab's Envoy adds to
// every response it makes itself (a lab addition, not in the real
// gateway): Envoy's response code details, which tell an ext_authz
// denial from an authz error or timeout that Envoy answers with the same
// 403. Values include GatewayDetailsAuthzDenied and GatewayDetailsAuthzError.
const GatewayDetailsHeader = "X-Authbench-Gateway-Details"

// Envoy's response code details of ext_authz's own answers, as in
// GatewayDetailsHeader.
const (
	// GatewayDetailsAuthzDenied: the authz service answered, and not 200;
	// its status (401, 403) is passed back.
	GatewayDetailsAuthzDenied = "ext_authz_denied"
	// GatewayDetailsAuthzError: the call failed or timed out (or the
	// service answered 5xx); Envoy answers its status_on_error, 403.
	GatewayDetailsAuthzError = "ext_authz_error"
)

// The names in Envoy's own stats (the admin /stats/prometheus): the
// gateway's HTTP counters are http.EnvoyStatPrefix.*, its clusters
// cluster.EnvoyClusterExtAuthz.* and cluster.EnvoyClusterBackend.*.
const (
	EnvoyStatPrefix      = "gateway"
	EnvoyClusterExtAuthz = "ext_authz"
	EnvoyClusterBackend  = "route_backend"
)

// Endpoint is a host and port in a rendered config.
type Endpoint struct {
	Host string
	Port int
}

// ParseEndpoint reads "HOST:PORT".
func ParseEndpoint(hostport string) (Endpoint, error) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return Endpoint{}, fmt.Errorf("address %q: %w", hostport, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return Endpoint{}, fmt.Errorf("address %q: bad port", hostport)
	}
	return Endpoint{Host: h, Port: n}, nil
}

// MustEndpoint is ParseEndpoint for addresses the lab made itself.
func MustEndpoint(hostport string) Endpoint {
	e, err := ParseEndpoint(hostport)
	if err != nil {
		panic(err) // a bug: the lab formats these addresses
	}
	return e
}

// DiscoveryType is Envoy's cluster type for the endpoint: STATIC for an
// IP address, STRICT_DNS for a name (a Service in a user's cluster).
func (e Endpoint) DiscoveryType() string {
	if net.ParseIP(e.Host) != nil {
		return "STATIC"
	}
	return "STRICT_DNS"
}

// EnvoyHopLogFormat is the gateway's access log line, in the format the
// ladder reads (pkg/ladder.ParseHopLine): the request's start in Unix
// milliseconds, its status and response code details, and in
// microseconds the whole request's time from its first byte received to
// its last sent, the upstream's from the first byte sent to the last
// received, and the ext_authz call's latency (the filter's state, with
// emit_filter_state_stats).
const EnvoyHopLogFormat = "authbench-ladder gw=envoy ms=%START_TIME(%s%3f)% status=%RESPONSE_CODE% " +
	"rt_us=%COMMON_DURATION(DS_RX_BEG:DS_TX_END:us)% urt_us=%COMMON_DURATION(US_TX_BEG:US_RX_END:us)% " +
	"authz_us=%FILTER_STATE(envoy.filters.http.ext_authz:FIELD:latency_us)% details=%RESPONSE_CODE_DETAILS%"

// EnvoyArgs are Envoy's flags besides its config on every platform: no
// hot restart (its shared memory would make two gateways on one host
// collide), warnings only on stderr, and the access log flushed every
// second (Envoy's default is 10 s; the ladder waits 1.5 s for it).
var EnvoyArgs = []string{"--disable-hot-restart", "--log-level", "warn", "--file-flush-interval-msec", "1000"}

// GatewayNote says, for a lab's status and reports, how a gateway
// answers what its ext_authz service does not allow.
func GatewayNote(gateway string) string {
	return gateway + ": Envoy's ext_authz passes the service's denial back (oauth2-proxy's 401, kube-rbac-proxy's 401 or 403) " +
		"and answers a failed or timed-out call with 403 (status_on_error) unless the failure mode is allow; " +
		"the lab adds " + GatewayDetailsHeader + " (" + GatewayDetailsAuthzDenied + ", " + GatewayDetailsAuthzError +
		", ...) to every answer Envoy makes itself, which the real gateway does not; its admin interface is port " + EnvoyAdminPort(gateway)
}
