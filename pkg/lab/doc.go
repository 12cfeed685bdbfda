// Package lab runs the local lab: the migration reports' two auth architectures
// built from real components on 127.0.0.1, each component in its own cgroup.
//
//	2x "Route + oauth-proxy":
//	  haproxy (an OpenShift Route, edge TLS) -> oauth-proxy (kube-rbac-proxy
//	  playing openshift/oauth-proxy: TokenReview + SAR) -> http-echo-2x
//	3x "Gateway + kube-auth-proxy + kube-rbac-proxy":
//	  nginx (standing in for Envoy, HTTP ext_authz via auth_request)
//	  -> oauth2-proxy (playing kube-auth-proxy, as ext_authz) ;
//	  nginx -> kube-rbac-proxy (TokenReview + SAR) -> http-echo-3x
//	3x-oauth "Gateway + kube-auth-proxy (OpenShift OAuth) + kube-rbac-proxy":
//	  nginx-oauth (auth_request over TLS) -> kube-auth-proxy-oauth
//	  (kube-rbac-proxy playing kube-auth-proxy as ext_authz: TokenReview +
//	  SAR, in front of authz-ok-oauth answering 200) ; nginx-oauth ->
//	  kube-rbac-proxy-oauth -> http-echo-3x-oauth
//	shared: etcd, kube-apiserver (RBAC, static tokens playing OpenShift
//	  OAuth tokens, OIDC from Keycloak), Keycloak (3x's identity provider)
//
// A lab is one handle, Lab (Open(dir)), with Up, Down, Status, State,
// Components, SetLimit and Scenario; where its components run is a
// Platform behind it. The processes platform (the default): `lab up`
// writes request.json and starts a detached supervisor (`lab serve`) that
// starts every component in dependency order, checks each with a real
// request raced against its exit, writes state.json and scenario.yaml when
// all are ready, and stops everything on SIGTERM (`lab down`). Components
// run in their own process group, die with the supervisor (Pdeathsig), and
// are killed through their cgroup at stop. The mechanism lives under
// internal/: lock (the supervisor's flock and liveness), ports (choosing
// and recording ports) and proc (one component process and its cgroup).
//
// The lab directory (default ~/.cache/authbench/lab, --lab-dir):
//
//	request.json      what lab up asked for (stacks, limits, pinned ports)
//	state.json        phase, supervisor pid, components (pid, cgroup, url,
//	                  version, role, limit), targets and notes
//	ports.json        the ports in use, reused by the next lab up when free
//	scenario.yaml     what `lab scenario` prints
//	lab.lock          flock held by the supervisor (holds its pid)
//	certs/            lab CA, server certificate (127.0.0.1, localhost),
//	                  service-account key pair; keys 0600
//	tokens/NAME       static bearer tokens: admin, alice, bob, the proxies'
//	                  identities (0600); tokens/pool: alice-1..N (--token-pool)
//	secrets/          token-auth.csv, Keycloak client secret and admin
//	                  password, oauth2-proxy cookie secret,
//	                  passwords/{alice,bob} (all 0600)
//	kubeconfig/       kubeconfigs of the proxies' identities (token by file)
//	conf/             rendered configs: haproxy.cfg, nginx.conf,
//	                  oauth-proxy.yaml, kube-rbac-proxy.yaml, audit-policy.yaml
//	logs/             NAME.log per component, supervisor.log,
//	                  kube-apiserver-audit.log (SARs and TokenReviews)
//	data/             etcd (fresh each start), keycloak, nginx temp files
//	run/              pid files
package lab
