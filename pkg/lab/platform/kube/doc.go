// Package kube is the lab's "kube" platform: the stacks of pkg/stacks (2x,
// 3x, 3x-oauth) as Deployments of a single-node Kubernetes built from real components
// (pkg/kube/cluster), applied from the same manifests `authbench kube
// deploy` applies to a user's cluster (pkg/kube/manifests) with the lab
// overlay: hostNetwork pods on free 127.0.0.1 ports.
//
// Keycloak stays outside the cluster, the external OIDC provider it is in the
// migration reports, but runs inside the cluster's PID and mount namespace (it
// is started with nsenter once the namespace exists), so that a killed
// supervisor ends it with the cluster. The fault proxy (Toxiproxy) runs
// there too, from the tool cache: every auth pod reaches the kube-apiserver
// through its apiserver link (the pods' KUBERNETES_SERVICE_HOST/PORT name
// it), everyone reaches Keycloak through its keycloak link (Keycloak's
// issuer is the link's address), and with --client-link or --client-rtt
// the scenario's targets go through a client link per stack, as on the
// processes platform; `lab fault` acts on them. A Prometheus in the
// cluster scrapes the kubelet's cAdvisor; the lab's scenario samples the
// pods through it.
//
// The composition root (pkg/cli) hands Platform{} to lab.Open.
package kube
