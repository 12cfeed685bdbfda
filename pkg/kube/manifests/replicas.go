package manifests

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/lab/standin"
	"github.com/authbench/authbench/pkg/stacks"
)

// LabelReplicaOf marks the objects of a replica (`lab scale`) with the
// component it is a replica of.
const LabelReplicaOf = "authbench.io/replica-of"

// EDSMountDir is where a lab gateway's pod mounts its endpoints files
// (Lab.EDSDir's subdirectory named as the gateway).
const EDSMountDir = "/etc/authbench/eds"

// GatewayEDSDir is the host directory of gateway's endpoints files under
// the lab's edsDir (Lab.EDSDir).
func GatewayEDSDir(edsDir, gateway string) string { return edsDir + "/" + gateway }

// Replica builds replica name of a scalable component from the live
// Deployment that runs the component (as read from the cluster): a
// Deployment of its own holding only the component's container, with the
// same image, config and limits, listening on the replica's ports
// (moved: each of the component's ports to the replica's), reaching its
// backend where the first replica does, and, when the first runs as a
// ServiceAccount, as a ServiceAccount of its own named as the replica,
// bound as the first is, so that the audit log tells their reviews apart.
// On hostNetwork a Deployment's second pod would bind the first's port,
// hence a Deployment per replica.
func Replica(live Object, name string, moved map[int]int) ([]Object, error) {
	base, i, ok := stacks.ReplicaOf(name)
	c, _ := stacks.Lookup(base)
	if !ok || i < 2 {
		return nil, fmt.Errorf("%s is no replica of a scalable component", name)
	}
	var d struct {
		Metadata struct {
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec Object `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := remarshal(live, &d); err != nil {
		return nil, fmt.Errorf("reading Deployment %s: %w", c.Deployment, err)
	}
	pod := d.Spec.Template.Spec
	ctr, err := replicaContainer(pod, c.Container, moved)
	if err != nil {
		return nil, fmt.Errorf("Deployment %s: %w", c.Deployment, err)
	}
	pod["containers"] = []Object{ctr}
	ns, stack := d.Metadata.Namespace, d.Metadata.Labels[LabelStack]
	var objs []Object
	if sa, _ := pod["serviceAccountName"].(string); sa != "" {
		pod["serviceAccountName"] = name
		delete(pod, "serviceAccount") // the live spec's deprecated alias
		objs = append(objs, replicaMeta(obj("v1", "ServiceAccount", meta(name, ns, stack), nil), base),
			replicaMeta(delegator(name, ns, stack), base))
	}
	labels := Object{"app": name}
	spec := Object{"replicas": 1, "selector": Object{"matchLabels": labels}, "strategy": Object{"type": "Recreate"},
		"template": Object{"metadata": Object{"labels": labels}, "spec": pod}}
	dep := obj("apps/v1", "Deployment", meta(name, ns, stack), Object{"spec": spec})
	return append(objs, replicaMeta(dep, base)), nil
}

// ReplicaObjects are the objects Replica makes for name, as deploy.Delete
// needs them (kinds, names, labels).
func ReplicaObjects(name, namespace, stack string, serviceAccount bool) []Object {
	base, _, _ := stacks.ReplicaOf(name)
	var objs []Object
	if serviceAccount {
		objs = append(objs, replicaMeta(obj("v1", "ServiceAccount", meta(name, namespace, stack), nil), base),
			replicaMeta(delegator(name, namespace, stack), base))
	}
	return append(objs, replicaMeta(obj("apps/v1", "Deployment", meta(name, namespace, stack), nil), base))
}

// delegator binds ServiceAccount sa to system:auth-delegator, as rbac
// binds each proxy's.
func delegator(sa, ns, stack string) Object {
	return obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", meta("authbench-"+sa+"-"+ns+"-auth-delegator", "", stack), Object{
		"roleRef":  Object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:auth-delegator"},
		"subjects": []Object{{"kind": "ServiceAccount", "name": sa, "namespace": ns}}})
}

func replicaMeta(o Object, base string) Object {
	o["metadata"].(Object)["labels"].(Object)[LabelReplicaOf] = base
	return o
}

// replicaContainer is the pod's container name with its listening ports
// moved: the listen flags' addresses, the stand-in's config and the
// readiness probe.
func replicaContainer(pod Object, name string, moved map[int]int) (Object, error) {
	cs, _ := pod["containers"].([]any)
	for _, x := range cs {
		c, ok := x.(Object)
		if !ok || c["name"] != name {
			continue
		}
		args, _ := c["args"].([]any)
		for k, a := range args {
			args[k] = moveAddr(fmt.Sprint(a), moved)
		}
		if err := moveEnv(c, moved); err != nil {
			return nil, err
		}
		if p, ok := c["readinessProbe"].(Object); ok {
			if t, ok := p["tcpSocket"].(Object); ok {
				if n, err := strconv.Atoi(fmt.Sprint(t["port"])); err == nil && moved[n] != 0 {
					t["port"] = moved[n]
				}
			}
		}
		return c, nil
	}
	return nil, fmt.Errorf("no container %s", name)
}

// moveAddr moves a flag's listen address (…=127.0.0.1:PORT).
func moveAddr(arg string, moved map[int]int) string {
	k := strings.LastIndex(arg, stacks.Loopback+":")
	if k < 0 {
		return arg
	}
	n, err := strconv.Atoi(arg[k+len(stacks.Loopback)+1:])
	if err != nil || moved[n] == 0 {
		return arg
	}
	return arg[:k] + stacks.Loopback + ":" + strconv.Itoa(moved[n])
}

// moveEnv moves the stand-in's listen address in its config.
func moveEnv(c Object, moved map[int]int) error {
	env, _ := c["env"].([]any)
	for _, x := range env {
		e, ok := x.(Object)
		if !ok || e["name"] != standin.Env {
			continue
		}
		sc, err := standin.Decode(fmt.Sprint(e["value"]))
		if err != nil {
			return err
		}
		sc.Listen = moveAddr(sc.Listen, moved)
		v, err := sc.Encode()
		if err != nil {
			return err
		}
		e["value"] = v
	}
	return nil
}

func remarshal(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
