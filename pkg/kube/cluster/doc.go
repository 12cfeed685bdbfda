// Package cluster runs a single-node Kubernetes cluster from real
// components (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// containerd and the kubelet) inside ONE private PID and mount namespace,
// every listener on 127.0.0.1.
//
// A supervisor is the namespace's PID 1 (`unshare --pid --fork --mount
// --propagation private --mount-proc --kill-child`): it overlays /run and
// /var with folders of the cluster's directory, bind-mounts files over the
// sysctls the kubelet would set, starts the components in order with one
// log each, and exits when any of them does. Its death ends every process
// of the cluster, containers included, and every mount. Down then removes
// what lives outside the namespace: the pods' cgroups under the cluster's
// own cgroup root and the CNI bridge.
package cluster
