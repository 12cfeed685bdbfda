// Package manifests builds the Kubernetes objects of the lab's two stacks (the
// migration reports' demo-echo-2x.yaml and its 3x sibling): Deployments,
// Services, ServiceAccounts and RBAC, an OpenShift Route (2x) or a Gateway API
// HTTPRoute (3x), and the ConfigMaps of the HAProxy and Envoy Deployments that
// play the router and the gateway, rendered from those Route and HTTPRoute
// objects.
//
// On a user's cluster the pods use the pod network and Services, and
// images come from a registry. The lab overlay (Options.Lab) puts every pod
// on hostNetwork with 127.0.0.1 ports, imagePullPolicy Never, and points
// kube-rbac-proxy at the apiserver's loopback address.
package manifests
