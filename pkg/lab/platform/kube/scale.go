package kube

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/stacks"
)

// SetReplicas runs the wanted replicas of each component: every replica
// beyond the first is a Deployment of its own (Deployment replicas on
// hostNetwork would bind one 127.0.0.1 port), copied from the first's
// with its own ports and ServiceAccount (manifests.Replica); the gateway
// in front then takes the new endpoints live from its watched files, and
// only then are the replicas no longer wanted deleted.
func (Platform) SetReplicas(ctx context.Context, dir string, scales []stacks.Scale) error {
	ctx, s, c, done, err := openLive(ctx, dir, "scaling the lab")
	if err != nil {
		return err
	}
	defer done()
	err = scale(ctx, c, dir, s, scales)
	sc := &lab.Scaled{Replicas: map[string]int{}}
	if s.Scaled != nil {
		sc.Generation = s.Scaled.Generation
	}
	sc.Generation++
	for _, x := range scales {
		sc.Replicas[x.Component] = s.Replicas(x.Component)
	}
	if err != nil {
		sc.Error = err.Error()
	}
	s.Scaled = sc
	setLogs(dir, s.Components)
	if werr := writeState(dir, s); err == nil {
		err = werr
	}
	return err
}

// scale starts the missing replicas, points the gateways in front at the
// new set, then deletes the surplus; s follows each step.
func scale(ctx context.Context, c *deploy.Client, dir string, s *lab.State, scales []stacks.Scale) error {
	fronts := map[string]bool{}
	var surplus []lab.ComponentInfo
	for _, sc := range scales {
		front, ok := stacks.Scalable(sc.Component)
		base, runs := s.Component(sc.Component)
		switch {
		case !ok:
			return fmt.Errorf("scaling %s: no scalable component; scalable: %s", sc.Component, strings.Join(stacks.ScalableNames(), ", "))
		case !runs:
			return fmt.Errorf("scaling %s: the lab in %s does not run it (stacks %v)", sc.Component, dir, s.Stacks)
		}
		have := s.Replicas(base.Name)
		for i := have + 1; i <= sc.Replicas; i++ {
			if err := addReplica(ctx, c, dir, s, base, i); err != nil {
				return err
			}
		}
		for i := have; i > sc.Replicas; i-- {
			surplus = append(surplus, dropComponent(s, stacks.ReplicaName(base.Name, i)))
		}
		if have != sc.Replicas {
			fronts[front.Name] = true
		}
		ownPods(s, base.Name)
	}
	for f := range fronts {
		if err := repoint(ctx, dir, s, f); err != nil {
			return fmt.Errorf("pointing %s at the new replicas: %w", f, err)
		}
	}
	for _, r := range surplus {
		if err := deploy.Delete(ctx, c, manifests.ReplicaObjects(r.Name, r.Namespace, r.Stack, hasIdentity(r.ReplicaOf))); err != nil {
			return fmt.Errorf("deleting %s: %w", r.Name, err)
		}
	}
	return nil
}

// repoint points the layer in front at the current replicas, live: a
// gateway's Envoy reloads its endpoints files, the route's HAProxy fills
// its server-template slots through its runtime API.
func repoint(ctx context.Context, dir string, s *lab.State, front string) error {
	if front == stacks.HAProxy {
		return reslot(ctx, dir, s.Ports, s.Replicas(stacks.OAuthProxy))
	}
	gw, err := gatewayEndpoints(dir, front, s.Ports, s.Replicas)
	if err != nil {
		return err
	}
	return reroute(ctx, gw, s.Ports[stacks.EnvoyAdminPort(front)])
}

// hasIdentity says whether a component's pod runs as a ServiceAccount of
// its own (the review-making proxies), as its replicas then do.
func hasIdentity(component string) bool {
	for _, sa := range stacks.ProxyServiceAccounts() {
		if sa == component {
			return true
		}
	}
	return false
}

// addReplica deploys replica i of base on fresh ports, waits until it is
// available, and records it in s after base's other replicas.
func addReplica(ctx context.Context, c *deploy.Client, dir string, s *lab.State, base lab.ComponentInfo, i int) error {
	name := stacks.ReplicaName(base.Name, i)
	rc, _ := stacks.Lookup(name)
	bc, _ := stacks.Lookup(base.Name)
	var names []string
	for _, p := range rc.Ports {
		names = append(names, p.Name)
	}
	used, err := ports.Allocate(names, nil, ports.Read(dir))
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	moved := map[int]int{}
	for k, p := range rc.Ports {
		moved[s.Ports[bc.Ports[k].Name]] = used[p.Name]
		s.Ports[p.Name] = used[p.Name]
	}
	if err := writeJSON(filepath.Join(dir, ports.File), s.Ports); err != nil {
		return err
	}
	ref := manifests.Object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": manifests.Object{"name": bc.Deployment, "namespace": base.Namespace}}
	p, _ := deploy.Path(ref, bc.Deployment)
	var live manifests.Object
	if found, err := c.GetJSON(ctx, p, &live); err != nil || !found {
		return fmt.Errorf("starting %s: reading Deployment %s (found %v): %v", name, bc.Deployment, found, err)
	}
	objs, err := manifests.Replica(live, name, moved)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	if err := deploy.Apply(ctx, c, objs, deploy.ApplyOptions{}); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	if err := deploy.WaitAvailable(ctx, c, objs[len(objs)-1:]); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	s.AddReplica(base.Name, replicaInfo(base, name, used[name]))
	return nil
}

// replicaInfo is replica name's entry in the state: base's, on its own
// Deployment and port.
func replicaInfo(base lab.ComponentInfo, name string, port int) lab.ComponentInfo {
	ci := base
	ci.Name, ci.ReplicaOf, ci.Log = name, base.Name, ""
	ci.Pod = name + "-.*"
	ci.Workload = fmt.Sprintf("Deployment %s/%s, container %s", ci.Namespace, name, ci.Container)
	ci.URL = fmt.Sprintf("%s://%s:%d%s", strings.SplitN(base.URL, ":", 2)[0], stacks.Loopback, port, stacks.EchoPath)
	ci.Status = lab.StatusRunning
	return ci
}

// dropComponent removes the named component from s and returns it.
func dropComponent(s *lab.State, name string) lab.ComponentInfo {
	var kept []lab.ComponentInfo
	var out lab.ComponentInfo
	for _, c := range s.Components {
		if c.Name == name {
			out = c
			continue
		}
		kept = append(kept, c)
	}
	s.Components = kept
	return out
}

// ownPods narrows the pod pattern the samplers use for base to its own
// Deployment's pods (DEPLOYMENT-HASH-SUFFIX) while it has replicas, whose
// pods DEPLOYMENT-rN-HASH-SUFFIX the usual DEPLOYMENT-.* would also match,
// adding their CPU to base's.
func ownPods(s *lab.State, base string) {
	d, _, _ := manifests.Workload(base)
	for i := range s.Components {
		if s.Components[i].Name != base {
			continue
		}
		s.Components[i].Pod = d + "-.*"
		if s.Replicas(base) > 1 {
			s.Components[i].Pod = d + "-[a-z0-9]+-[a-z0-9]+"
		}
	}
}
