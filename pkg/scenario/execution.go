package scenario

import (
	"strings"

	"github.com/authbench/authbench/pkg/plan"
)

// executionSpec runs the load from pods of a Kubernetes Job:
//
//	execution: {pods: 3, namespace: load, image: registry.example/authbench:sha-...}
type executionSpec struct {
	// Pods is the number of load generator pods, >= 1. Required.
	Pods *int `yaml:"pods"`
	// Kubeconfig file. Default $KUBECONFIG, then ~/.kube/config.
	Kubeconfig string `yaml:"kubeconfig"`
	// Context of the kubeconfig. Default: its current one.
	Context string `yaml:"context"`
	// Namespace of the Job. Default "default".
	Namespace string `yaml:"namespace"`
	// Image is authbench's image. Default: a kube lab's own; else required.
	Image string `yaml:"image"`
	// HostNetwork runs the pods in the node's network. Default: true in a
	// kube lab, false elsewhere.
	HostNetwork *bool `yaml:"host_network"`
	// CPURequest, CPULimit, MemoryRequest, MemoryLimit are each pod's
	// resources, Kubernetes quantities ("500m", "256Mi"). Default none.
	CPURequest    string `yaml:"cpu_request"`
	CPULimit      string `yaml:"cpu_limit"`
	MemoryRequest string `yaml:"memory_request"`
	MemoryLimit   string `yaml:"memory_limit"`
	// NodeSelector lists "label=value" the nodes must have. Default none.
	NodeSelector []string `yaml:"node_selector"`
	// Spread prefers one pod per node. Default false.
	Spread bool `yaml:"spread"`
}

func (b *builder) execution(p *plan.Plan, x *executionSpec) *plan.Execution {
	if x == nil {
		return nil
	}
	const path = "execution"
	out := &plan.Execution{Kubeconfig: b.resolve(x.Kubeconfig), Context: x.Context, Image: x.Image,
		HostNetwork: x.HostNetwork, CPURequest: x.CPURequest, CPULimit: x.CPULimit, MemoryRequest: x.MemoryRequest,
		MemoryLimit: x.MemoryLimit, Spread: x.Spread}
	switch {
	case x.Pods == nil:
		b.missing(x, path, "pods", "required: the number of load generator pods")
	case *x.Pods < 1:
		b.errAt(x, path, "pods", "must be at least 1, got %d", *x.Pods)
	default:
		out.Pods = *x.Pods
		b.give(p, x, path, "pods")
	}
	ns, err := plan.ParseNamespace(x.Namespace)
	if err != nil {
		b.errAt(x, path, "namespace", "%q: %v", x.Namespace, err)
	}
	out.Namespace = ns
	out.NodeSelector = b.nodeSelector(x, path)
	return out
}

// nodeSelector parses "label=value" entries, each a valid Kubernetes
// label, since they reach the Job's pod template.
func (b *builder) nodeSelector(x *executionSpec, path string) map[string]string {
	var out map[string]string
	for _, kv := range x.NodeSelector {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			b.errAt(x, path, "node_selector", "want \"label=value\", got %q", kv)
			continue
		}
		if err := plan.CheckLabel(k, v); err != nil {
			b.errAt(x, path, "node_selector", "%v", err)
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}
