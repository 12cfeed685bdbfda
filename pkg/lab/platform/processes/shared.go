package processes

import (
	"context"
	"os"
	"strconv"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// The components every stack shares: etcd and the kube-apiserver.

// etcd is the kube-apiserver's store, fresh at every start.
func (b *builder) etcd() (*spec, error) {
	bin, err := lookupTool(stacks.ProgramEtcd)
	if err != nil {
		return nil, err
	}
	data := b.path("data", stacks.Etcd)
	peer := b.url("http", stacks.PortEtcdPeer, "")
	client := b.url("http", stacks.Etcd, "")
	return &spec{
		ComponentInfo: b.info(stacks.Etcd, bin),
		argv: []string{bin, "--name", "authbench", "--data-dir", data,
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", "authbench=" + peer, "--initial-cluster-state", "new",
			"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"},
		ports: portsOf(stacks.Etcd),
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
	bin, err := lookupTool(stacks.ProgramAPIServer)
	if err != nil {
		return nil, err
	}
	audit := b.path(lab.AuditLog)
	argv := []string{bin,
		"--etcd-servers=" + b.url("http", stacks.Etcd, ""),
		"--bind-address=" + stacks.Loopback, "--advertise-address=" + stacks.Loopback,
		"--secure-port=" + strconv.Itoa(b.ports[stacks.APIServer]),
		"--cert-dir=" + b.path("data", stacks.APIServer),
		"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
		"--client-ca-file=" + b.certs.CA,
		"--authorization-mode=RBAC",
		"--token-auth-file=" + b.secrets.TokenAuthFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + b.certs.SAPub,
		"--service-account-signing-key-file=" + b.certs.SAKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--audit-policy-file=" + stacks.ConfPath(b.dir, stacks.ConfigAuditPolicy),
		"--audit-log-path=" + audit,
		"--audit-log-maxsize=100", "--audit-log-maxbackup=1",
		"--profiling=false",
	}
	if b.cfg.Has(stacks.Stack3x) {
		argv = append(argv, stacks.OIDCArgs(b.issuerURL(), b.certs.CA)...)
	}
	api := b.url("https", stacks.APIServer, "")
	return &spec{
		ComponentInfo: b.info(stacks.APIServer, bin),
		argv:          argv,
		ports:         portsOf(stacks.APIServer),
		// Its OIDC authenticator reaches Keycloak through the fault proxy.
		after: []string{stacks.Etcd, stacks.Toxiproxy},
		prepare: func() error {
			_ = os.Remove(audit)
			_, err := stacks.WriteAuditPolicy(b.dir)
			return err
		},
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, api+"/readyz", b.adminToken(), "", 200)
		},
		setup: func(ctx context.Context) error { return applyRBAC(ctx, b.client, api, b.adminToken()) },
	}, nil
}
