package plan

// Execution says where the load executes. Default nil: in this process.
// With Pods set, each phase runs in the pods of one Kubernetes Job (run
// --pods), split exactly among them and merged exactly.
type Execution struct {
	// Pods is the number of load generator pods. Required, at least 1,
	// and at most the concurrency (each pod needs a worker).
	Pods int `json:"pods"`
	// Kubeconfig is the kubeconfig file. Default $KUBECONFIG, then
	// ~/.kube/config (a kube lab's own, with --lab-dir).
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Context is the kubeconfig context. Default: its current one.
	Context string `json:"context,omitempty"`
	// Namespace of the Job. Default "default".
	Namespace Namespace `json:"namespace,omitzero"`
	// Image is authbench's image reference. Default: in a kube lab, the
	// image of this very binary, imported; elsewhere required.
	Image string `json:"image,omitempty"`
	// HostNetwork runs the pods in the node's network. Default: true in
	// a kube lab (traffic only on 127.0.0.1), false elsewhere.
	HostNetwork *bool `json:"host_network,omitempty"`
	// CPURequest, CPULimit, MemoryRequest and MemoryLimit are each
	// generator pod's resources (Kubernetes quantities). Default none.
	CPURequest    string `json:"cpu_request,omitempty"`
	CPULimit      string `json:"cpu_limit,omitempty"`
	MemoryRequest string `json:"memory_request,omitempty"`
	MemoryLimit   string `json:"memory_limit,omitempty"`
	// NodeSelector restricts the nodes the pods may run on. Default none.
	NodeSelector map[string]string `json:"node_selector,omitempty"`
	// Spread prefers one pod per node (anti-affinity). Default false.
	Spread bool `json:"spread,omitempty"`
}

// FieldPods is the execution block's pods, as Given and FieldError name it.
const FieldPods = "execution.pods"

// execution checks the execution block against the load: each pod needs a
// worker.
func (v *validation) execution() {
	x := v.q.Execution
	switch {
	case x == nil:
	case x.Pods < 1:
		v.add(FieldPods, "must be at least 1, got %d", x.Pods)
	case v.q.Load.Concurrency < x.Pods:
		v.add(FieldConcurrency, "%d workers cannot be split among %d pods (%s %d): each pod runs at least one",
			v.q.Load.Concurrency, x.Pods, v.name(FieldPods, "pods"), x.Pods)
	}
}
