package manifests

import (
	"fmt"
	"strconv"

	"github.com/authbench/authbench/pkg/stacks"
)

// Object is one Kubernetes object, as its JSON fields.
type Object = map[string]any

// Names of the objects every stack shares.
const (
	// DefaultNamespace is where the stacks go unless told otherwise.
	DefaultNamespace = stacks.Namespace
	// ServingSecret holds the TLS certificate every TLS listener serves.
	ServingSecret = "authbench-serving"
	// LabelStack marks every object of a stack, for delete.
	LabelStack = "authbench.io/stack"
	// Shared is LabelStack's value on objects both stacks use (the serving
	// Secret, alice's and bob's ServiceAccounts): deleting one stack keeps them.
	Shared = stacks.Shared
)

// meta returns metadata with the stack label.
func meta(name, ns, stack string) Object {
	m := Object{"name": name, "labels": Object{LabelStack: stack, "app.kubernetes.io/part-of": "authbench"}}
	if ns != "" {
		m["namespace"] = ns
	}
	return m
}

func obj(apiVersion, kind string, md Object, rest Object) Object {
	o := Object{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for k, v := range rest {
		o[k] = v
	}
	return o
}

// Name, Kind, Namespace and APIVersion of o.
func Name(o Object) string       { return str(o["metadata"].(Object)["name"]) }
func Namespace(o Object) string  { return str(o["metadata"].(Object)["namespace"]) }
func Kind(o Object) string       { return str(o["kind"]) }
func APIVersion(o Object) string { return str(o["apiVersion"]) }

func str(v any) string {
	s, _ := v.(string)
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

// Ports are the listening ports of the components; in the lab they are
// free 127.0.0.1 ports, on a cluster the catalog's pod ports.
type Ports map[string]int

func (o Options) port(name string) int {
	if p, ok := o.Lab.portOf(name); ok {
		return p
	}
	return stacks.PodPort(name)
}

// listen is the address a container binds: 127.0.0.1 on the lab's host
// network, every interface of the pod's own network namespace otherwise.
func (o Options) listen(name string) string {
	host := "0.0.0.0"
	if o.Lab != nil {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("%s:%d", host, o.port(name))
}

// peer is how one component reaches another: a loopback port in the lab,
// the pod's localhost for a sidecar, a Service's DNS name otherwise.
func (o Options) peer(service, component string, sidecar bool) string {
	switch {
	case o.Lab != nil || sidecar:
		return fmt.Sprintf("127.0.0.1:%d", o.port(component))
	default:
		return fmt.Sprintf("%s.%s.svc:%d", service, o.namespace(), o.port(component))
	}
}

// IsShared says whether o is used by both stacks (or is their Namespace).
func IsShared(o Object) bool {
	if Kind(o) == "Namespace" {
		return true
	}
	labels, _ := o["metadata"].(Object)["labels"].(Object)
	return str(labels[LabelStack]) == Shared
}

// Workload returns the Deployment and container that run a component
// (the names `lab limit` and the cAdvisor samples use).
func Workload(component string) (deployment, container string, ok bool) {
	if component == Prometheus {
		return Prometheus, Prometheus, true
	}
	c, ok := stacks.Lookup(component)
	if !ok || c.Deployment == "" {
		return "", "", false
	}
	if _, i, ok := stacks.ReplicaOf(component); ok && i > 1 {
		return component, c.Container, true // a Deployment of its own (Replica)
	}
	return c.Deployment, c.Container, true
}
