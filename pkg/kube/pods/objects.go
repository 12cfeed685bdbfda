package pods

import (
	"encoding/base64"
	"net/url"
	"path"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/plan"
)

// RunLabel is on every object a run creates; its value is the run's id.
const RunLabel = "authbench.io/run"

type obj = map[string]any

func meta(name, ns, run string) obj {
	return obj{"name": name, "namespace": ns, "labels": obj{RunLabel: run}}
}

// owned makes o a dependent of the Job, so that deleting the Job (or its
// TTL after a killed coordinator) deletes it too.
func owned(o obj, job, uid string) obj {
	o["metadata"].(obj)["ownerReferences"] = []obj{{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": uid}}
	return o
}

// jobObject is the Indexed Job, created suspended: its Secret, ConfigMap
// and RBAC are created as its dependents before it is resumed.
func (e *Executor) jobObject() obj {
	n := e.o.Pods
	container := obj{
		"name": agentContainer, "image": e.o.Image, "imagePullPolicy": e.o.PullPolicy,
		"args": []string{"agent", "--config", path.Join(SecretDir, ConfigFile)},
		"env": []obj{
			{"name": "POD_NAME", "valueFrom": obj{"fieldRef": obj{"fieldPath": "metadata.name"}}},
			{"name": "NODE_NAME", "valueFrom": obj{"fieldRef": obj{"fieldPath": "spec.nodeName"}}},
		},
		"volumeMounts": []obj{{"name": "run", "mountPath": SecretDir, "readOnly": true}},
		"resources":    e.resources(),
	}
	spec := obj{
		"restartPolicy": "Never", "serviceAccountName": e.name.String(), "hostNetwork": e.o.hostNetwork(),
		"automountServiceAccountToken": true, "terminationGracePeriodSeconds": 2,
		"containers": []obj{container},
		"volumes":    []obj{{"name": "run", "secret": obj{"secretName": e.name.String(), "defaultMode": 0o440}}},
	}
	if !e.o.PullSecret.IsZero() {
		spec["imagePullSecrets"] = []obj{{"name": e.o.PullSecret.String()}}
	}
	if sc := e.o.Seccomp.securityContext(); sc != nil {
		spec["securityContext"] = sc
	}
	if e.o.hostNetwork() {
		spec["dnsPolicy"] = "ClusterFirstWithHostNet"
	}
	if len(e.o.NodeSelector) > 0 {
		spec["nodeSelector"] = e.o.NodeSelector
	}
	if e.o.Spread {
		spec["affinity"] = obj{"podAntiAffinity": obj{"preferredDuringSchedulingIgnoredDuringExecution": []obj{{
			"weight": 100, "podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname",
				"labelSelector": obj{"matchLabels": obj{RunLabel: e.id}}}}}}}
	}
	return obj{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(e.name.String(), e.o.Namespace.String(), e.id),
		"spec": obj{
			"completionMode": "Indexed", "completions": n, "parallelism": n, "suspend": true,
			// A failed pod fails its index only: the others go on and
			// the run reports what they covered.
			"backoffLimitPerIndex": 0, "maxFailedIndexes": n, "podReplacementPolicy": "Failed",
			"ttlSecondsAfterFinished": 60,
			"template":                obj{"metadata": obj{"labels": obj{RunLabel: e.id}}, "spec": spec},
		}}
}

func (e *Executor) resources() obj {
	r := obj{}
	add := func(kind, res, v string) {
		if v == "" {
			return
		}
		if r[kind] == nil {
			r[kind] = obj{}
		}
		r[kind].(obj)[res] = v
	}
	add("requests", "cpu", e.o.CPURequest)
	add("limits", "cpu", e.o.CPULimit)
	add("requests", "memory", e.o.MemoryRequest)
	add("limits", "memory", e.o.MemoryLimit)
	return r
}

// dependents are the Job's ServiceAccount, its Role and RoleBinding (get
// on this run's ConfigMap, nothing else), the Secret and the ConfigMap.
func (e *Executor) dependents(uid string, files map[string][]byte) []obj {
	ns, n, id := e.o.Namespace.String(), e.name.String(), e.id
	data := obj{}
	for k, v := range files {
		data[k] = base64.StdEncoding.EncodeToString(v)
	}
	objs := []obj{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(n, ns, id), "automountServiceAccountToken": true},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta(n, ns, id),
			"rules": []obj{{"apiGroups": []string{""}, "resources": []string{"configmaps"}, "resourceNames": []string{n}, "verbs": []string{"get"}}}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta(n, ns, id),
			"roleRef":  obj{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": n},
			"subjects": []obj{{"kind": "ServiceAccount", "name": n, "namespace": ns}}},
		{"apiVersion": "v1", "kind": "Secret", "metadata": meta(n, ns, id), "type": "Opaque", "data": data},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(n, ns, id), "data": obj{}},
	}
	for _, o := range objs {
		owned(o, n, uid)
	}
	return objs
}

// resourceCollection is where the objects of one kind live.
type resourceCollection struct {
	kind    string
	version []string // "api", "v1" or "apis", GROUP, VERSION
	plural  string
}

// in is the collection's path in namespace ns.
func (c resourceCollection) in(ns plan.Namespace) kubeapi.URLPath {
	return kubeapi.Path(c.version...).Join("namespaces", ns.String(), c.plural)
}

// collections are where a run's objects live, for cleanup and checks.
var collections = []resourceCollection{
	{"Secret", []string{"api", "v1"}, "secrets"},
	{"Job", []string{"apis", "batch", "v1"}, "jobs"},
	{"Pod", []string{"api", "v1"}, "pods"},
	{"ConfigMap", []string{"api", "v1"}, "configmaps"},
	{"RoleBinding", []string{"apis", "rbac.authorization.k8s.io", "v1"}, "rolebindings"},
	{"Role", []string{"apis", "rbac.authorization.k8s.io", "v1"}, "roles"},
	{"ServiceAccount", []string{"api", "v1"}, "serviceaccounts"},
}

// collection is the path of kind's collection in namespace ns; an unknown
// kind gives the empty path, which the client refuses.
func collection(kind string, ns plan.Namespace) kubeapi.URLPath {
	for _, c := range collections {
		if c.kind == kind {
			return c.in(ns)
		}
	}
	return kubeapi.URLPath{}
}

// objectPath is the REST path of the object of kind named name in ns.
func objectPath(kind string, ns plan.Namespace, name plan.ObjectName) kubeapi.URLPath {
	return collection(kind, ns).Join(name.String())
}

// runSelector selects the objects of run id, and only them.
func runSelector(id string) url.Values {
	return url.Values{"labelSelector": {RunLabel + "=" + id}}
}
