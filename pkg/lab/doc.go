// Package lab is the local lab's handle: Lab (Open(dir, platforms...)),
// with Up, Down, Status, State, Components, SetLimit and Scenario; the
// Platform interface a lab's components run behind; and the files every
// platform keeps alike: request.json (Config), state.json (State),
// scenario.yaml, and the limits syntax (Limit).
//
// What the stacks are (components, configs, certificates, secrets, RBAC)
// is pkg/stacks; where they run is a platform: pkg/lab/platform/processes
// (each component a process of this host, the default) or
// pkg/lab/platform/kube (pods of a single-node Kubernetes). The program's
// composition root (pkg/cli) builds the platforms and hands them to Open;
// this package imports neither.
//
// The lab directory (default ~/.cache/authbench/lab, --lab-dir):
//
//	request.json      what lab up asked for (platform, stacks, limits, ports)
//	state.json        phase, supervisor pid, components (pid, cgroup, url,
//	                  version, role, limit), targets and notes
//	ports.json        the ports in use, reused by the next lab up when free
//	scenario.yaml     what `lab scenario` prints
//	lab.lock          flock held by the processes supervisor (holds its pid)
//	certs/            lab CA, server certificate (127.0.0.1, localhost),
//	                  service-account key pair; keys 0600
//	tokens/NAME       static bearer tokens: admin, alice, bob, the proxies'
//	                  identities (0600); tokens/pool: alice-1..N (--token-pool)
//	secrets/          token-auth.csv, Keycloak client secret and admin
//	                  password, oauth2-proxy cookie secret,
//	                  passwords/{alice,bob} (all 0600)
//	kubeconfig/       kubeconfigs of the proxies' identities (token by file)
//	conf/             rendered configs: haproxy.cfg, envoy.yaml, envoy-oauth.yaml,
//	                  kube-rbac-proxy yaml, audit-policy.yaml
//	logs/             NAME.log per component, supervisor.log, NAME-access.log
//	                  of each Envoy (the ladder's lines),
//	                  kube-apiserver-audit.log (SARs and TokenReviews)
//	data/             etcd (fresh each start), keycloak
//	run/              pid files
//	kube/             the kube platform's cluster
package lab
