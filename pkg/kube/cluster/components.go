package cluster

import (
	"path/filepath"
)

// components returns the cluster's programs in start order: the control
// plane after etcd, controller-manager and scheduler after the apiserver's
// /readyz (before the RBAC bootstrap they exit with "forbidden"), and the
// kubelet after containerd and the apiserver.
func components(dir, hyperkube string, pt Ports, extraAPI []string) []component {
	p := paths{dir}
	kc := func(u string) string { return filepath.Join(dir, "kubeconfigs", u+".yaml") }
	etcd := "http://127.0.0.1:" + itoa(pt.Etcd)
	peer := "http://127.0.0.1:" + itoa(pt.EtcdPeer)
	api := "https://127.0.0.1:" + itoa(pt.APIServer)
	return []component{
		{Name: "etcd", Ready: etcd + "/health", Argv: []string{"etcd", "--name=lab",
			"--data-dir=" + filepath.Join(dir, "etcd"), "--listen-client-urls=" + etcd, "--advertise-client-urls=" + etcd,
			"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer, "--initial-cluster=lab=" + peer,
			"--unsafe-no-fsync"}},
		{Name: "containerd", Ready: "unix:/run/containerd/containerd.sock",
			Argv: []string{"containerd", "--config=" + filepath.Join(dir, "containerd", "config.toml")}},
		{Name: "kube-apiserver", After: []string{"etcd"}, Ready: api + "/readyz", Argv: append([]string{hyperkube, "kube-apiserver",
			"--etcd-servers=" + etcd, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
			"--secure-port=" + itoa(pt.APIServer), "--cert-dir=" + filepath.Join(dir, "pki", "apiserver-generated"),
			"--tls-cert-file=" + p.pki("apiserver.crt"), "--tls-private-key-file=" + p.pki("apiserver.key"),
			"--client-ca-file=" + p.pki("ca.crt"),
			"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
			// A loopback issuer, reachable from the host as a real
			// cluster's is: OIDC discovery of ServiceAccount tokens works.
			"--service-account-issuer=" + api,
			"--service-account-key-file=" + p.pki("sa.pub"), "--service-account-signing-key-file=" + p.pki("sa.key"),
			"--service-cluster-ip-range=10.96.0.0/16", "--endpoint-reconciler-type=none",
			"--kubelet-client-certificate=" + p.pki("apiserver-kubelet-client.crt"),
			"--kubelet-client-key=" + p.pki("apiserver-kubelet-client.key"),
			"--kubelet-certificate-authority=" + p.pki("ca.crt"),
			"--kubelet-preferred-address-types=InternalIP,Hostname", "--allow-privileged=true", "--profiling=false"}, extraAPI...)},
		{Name: "kube-controller-manager", After: []string{"kube-apiserver"},
			Ready: "https://127.0.0.1:" + itoa(pt.ControllerManager) + "/healthz", Argv: []string{hyperkube, "kube-controller-manager",
				"--kubeconfig=" + kc("controller-manager"), "--authentication-kubeconfig=" + kc("controller-manager"),
				"--authorization-kubeconfig=" + kc("controller-manager"),
				"--bind-address=127.0.0.1", "--secure-port=" + itoa(pt.ControllerManager),
				"--cert-dir=" + filepath.Join(dir, "pki", "kcm-generated"),
				"--service-account-private-key-file=" + p.pki("sa.key"), "--root-ca-file=" + p.pki("ca.crt"),
				"--use-service-account-credentials=true", "--controllers=*", "--leader-elect=false",
				"--service-cluster-ip-range=10.96.0.0/16", "--profiling=false"}},
		{Name: "kube-scheduler", After: []string{"kube-apiserver"},
			Ready: "https://127.0.0.1:" + itoa(pt.Scheduler) + "/healthz", Argv: []string{hyperkube, "kube-scheduler",
				"--kubeconfig=" + kc("scheduler"), "--authentication-kubeconfig=" + kc("scheduler"),
				"--authorization-kubeconfig=" + kc("scheduler"),
				"--bind-address=127.0.0.1", "--secure-port=" + itoa(pt.Scheduler),
				"--cert-dir=" + filepath.Join(dir, "pki", "scheduler-generated"), "--leader-elect=false", "--profiling=false"}},
		{Name: "kubelet", After: []string{"containerd", "kube-apiserver"},
			Ready: "http://127.0.0.1:" + itoa(pt.KubeletHealthz) + "/healthz", Argv: []string{hyperkube, "kubelet",
				"--config=" + filepath.Join(dir, "kubelet", "config.yaml"), "--kubeconfig=" + kc("kubelet"),
				"--root-dir=" + filepath.Join(dir, "kubelet", "root"), "--hostname-override=" + NodeName,
				"--housekeeping-interval=" + Housekeeping.String()}},
	}
}
