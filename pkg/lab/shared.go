package lab

import (
	"context"
	"os"
	"strconv"
)

// The components both stacks share: etcd and the kube-apiserver.

// AuditLog is the kube-apiserver's audit log, relative to the lab
// directory: every TokenReview and SubjectAccessReview with its caller
// (what observe.NewAuditReviews counts).
const AuditLog = "logs/kube-apiserver-audit.log"

// etcd is the kube-apiserver's store, fresh at every start.
func (b *builder) etcd() (*spec, error) {
	bin, err := lookupTool("etcd")
	if err != nil {
		return nil, err
	}
	data := b.path("data", "etcd")
	peer := b.url("http", "etcd-peer", "")
	client := b.url("http", CompEtcd, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompEtcd, Stack: StackShared, Role: "kube-storage",
			Program: "etcd", Version: toolVersion("etcd", bin), URL: client},
		argv: []string{bin, "--name", "authbench", "--data-dir", data,
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", "authbench=" + peer, "--initial-cluster-state", "new",
			"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"},
		ports: []string{CompEtcd, "etcd-peer"},
		// A fresh store each start: the RBAC objects are recreated anyway,
		// and the peer URL may have changed.
		prepare: func() error { return os.RemoveAll(data) },
		ready: func(ctx context.Context) error {
			return probe(ctx, b.client, client+"/health", "", `"health":"true"`, 200)
		},
	}, nil
}

// apiserver is the real kube-apiserver: RBAC, static tokens playing OpenShift
// OAuth tokens, OIDC tokens from Keycloak, and an audit log of the reviews.
func (b *builder) apiserver() (*spec, error) {
	bin, err := lookupTool("kube-apiserver")
	if err != nil {
		return nil, err
	}
	audit := b.path(AuditLog)
	argv := []string{bin,
		"--etcd-servers=" + b.url("http", CompEtcd, ""),
		"--bind-address=" + loopback, "--advertise-address=" + loopback,
		"--secure-port=" + strconv.Itoa(b.ports[CompAPIServer]),
		"--cert-dir=" + b.path("data", "kube-apiserver"),
		"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
		"--client-ca-file=" + b.certs.CA,
		"--authorization-mode=RBAC",
		"--token-auth-file=" + b.secrets.TokenAuthFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + b.certs.SAPub,
		"--service-account-signing-key-file=" + b.certs.SAKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--audit-policy-file=" + confPath(b.dir, "audit-policy.yaml"),
		"--audit-log-path=" + audit,
		"--audit-log-maxsize=100", "--audit-log-maxbackup=1",
		"--profiling=false",
	}
	if b.cfg.has(Stack3x) {
		argv = append(argv,
			"--oidc-issuer-url="+b.issuerURL(),
			"--oidc-client-id="+OIDCClientID,
			"--oidc-username-claim=preferred_username",
			"--oidc-username-prefix=-",
			"--oidc-ca-file="+b.certs.CA)
	}
	api := b.url("https", CompAPIServer, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompAPIServer, Stack: StackShared,
			Role: "kube-apiserver", Plays: "the OpenShift API server and OAuth token authority",
			Program: "kube-apiserver", Version: toolVersion("kube-apiserver", bin), URL: api},
		argv:  argv,
		ports: []string{CompAPIServer},
		after: []string{CompEtcd},
		prepare: func() error {
			_ = os.Remove(audit)
			return renderTo(confPath(b.dir, "audit-policy.yaml"), "audit-policy.yaml", b.data())
		},
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, api+"/readyz", b.adminToken(), "", 200)
		},
		setup: func(ctx context.Context) error { return applyRBAC(ctx, b.client, api, b.adminToken()) },
	}, nil
}
