package stacks

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxReplicas is the most replicas `lab scale` runs of one component: the
// migration reports' 32 replicas. Each replica beyond the first has its own
// identity at the API server, provisioned when the lab starts (a static
// token file is read only then), so the count is bounded.
const MaxReplicas = 32

// replicaInfix joins a component's name and a replica's number:
// kube-auth-proxy-oauth-r2 is kube-auth-proxy-oauth's second replica. The
// first replica keeps the component's own name, ports and identity.
const replicaInfix = "-r"

// Scalable reports whether `lab scale` may run replicas of the named
// component, and which layer balances across them: the auth components
// (the ext_authz services behind a gateway's ext_authz cluster, the 2x
// oauth proxy behind the route, the kube-rbac-proxy sidecars behind the
// gateway's backend cluster). Gateways and the route are the client's
// entry point, with nothing in front to balance them; backends and the
// shared components are not on the auth path.
func Scalable(name string) (front Component, ok bool) {
	c, ok := lookupCatalog(name)
	if !ok {
		return Component{}, false
	}
	switch c.Role {
	case RoleExtAuthz, RoleOAuthProxy, RoleRBACProxy:
	default:
		return Component{}, false
	}
	st, _ := Get(c.Stack)
	for _, r := range []string{RoleGateway, RoleRoute} {
		if f, ok := st.ByRole(r); ok {
			return f, true
		}
	}
	return Component{}, false
}

// ScalableNames lists the components `lab scale` accepts, in catalog order.
func ScalableNames() []string {
	var out []string
	for _, s := range catalog {
		for _, c := range s.Components {
			if _, ok := Scalable(c.Name); ok {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// ReplicaName is the name of replica i (from 1) of component base: the
// component itself for the first.
func ReplicaName(base string, i int) string {
	if i <= 1 {
		return base
	}
	return base + replicaInfix + strconv.Itoa(i)
}

// ReplicaOf splits a replica's name into its component and number (1 for
// the component itself); ok is false for a name that is neither.
func ReplicaOf(name string) (base string, i int, ok bool) {
	if _, ok := Scalable(name); ok {
		return name, 1, true
	}
	k := strings.LastIndex(name, replicaInfix)
	if k < 0 {
		return "", 0, false
	}
	base = name[:k]
	n, err := strconv.Atoi(name[k+len(replicaInfix):])
	if _, scalable := Scalable(base); !scalable || err != nil || n < 2 || n > MaxReplicas ||
		ReplicaName(base, n) != name {
		return "", 0, false
	}
	return base, n, true
}

// replicaComponent is replica name of a scalable component: the
// component's entry with its name, its ports renamed after it (its own
// first, then each other port with the component's name replaced), and no
// Deployment of its own on the processes platform's terms.
func replicaComponent(name string) (Component, bool) {
	base, i, ok := ReplicaOf(name)
	if !ok || i < 2 {
		return Component{}, false
	}
	c, _ := Lookup(base)
	c.Name = name
	ports := make([]Port, len(c.Ports))
	for k, p := range c.Ports {
		ports[k] = Port{Name: name + strings.TrimPrefix(p.Name, base), Pod: p.Pod}
	}
	c.Ports = ports
	return c, true
}

// replicaIdentities are the API server identities of every scalable
// component's replicas beyond the first, each named as its replica, so
// that the audit log tells each replica's reviews apart.
func replicaIdentities() []string {
	var out []string
	for _, base := range ScalableNames() {
		for i := 2; i <= MaxReplicas; i++ {
			out = append(out, ReplicaName(base, i))
		}
	}
	return out
}

// Scale is a wanted replica count of one component, as in
// `lab scale kube-auth-proxy-oauth=3`.
type Scale struct {
	Component string `json:"component"`
	Replicas  int    `json:"replicas"`
}

// String is the COMPONENT=N form.
func (s Scale) String() string { return s.Component + "=" + strconv.Itoa(s.Replicas) }

// ParseScale reads COMPONENT=N: a scalable component and 1..MaxReplicas.
func ParseScale(v string) (Scale, error) {
	name, n, ok := strings.Cut(strings.TrimSpace(v), "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Scale{}, fmt.Errorf("scale %q: want COMPONENT=REPLICAS, e.g. %s=3", v, KubeAuthProxyOAuth)
	}
	if _, ok := Scalable(name); !ok {
		return Scale{}, fmt.Errorf("scale %q: %s cannot be scaled; scalable components: %s", v, name, strings.Join(ScalableNames(), ", "))
	}
	r, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || r < 1 || r > MaxReplicas {
		return Scale{}, fmt.Errorf("scale %q: replicas %q: want a whole number from 1 to %d", v, n, MaxReplicas)
	}
	return Scale{Component: name, Replicas: r}, nil
}

// ParseScales parses each value as ParseScale does; a component given
// twice is an error.
func ParseScales(values []string) ([]Scale, error) {
	seen := map[string]bool{}
	var out []Scale
	for _, v := range values {
		s, err := ParseScale(v)
		if err != nil {
			return nil, err
		}
		if seen[s.Component] {
			return nil, fmt.Errorf("scale for %s given twice", s.Component)
		}
		seen[s.Component] = true
		out = append(out, s)
	}
	return out, nil
}

// ScaleSteps are the replica counts of one component a capacity run
// searches at, as in `capacity --replicas kube-auth-proxy-oauth=1,2,4`.
type ScaleSteps struct {
	Component string
	Replicas  []int
}

// ParseScaleSteps reads COMPONENT=N[,N...]: a scalable component and
// distinct replica counts from 1 to MaxReplicas, searched in the order
// given.
func ParseScaleSteps(v string) (ScaleSteps, error) {
	name, list, ok := strings.Cut(strings.TrimSpace(v), "=")
	if !ok || strings.TrimSpace(list) == "" {
		return ScaleSteps{}, fmt.Errorf("replicas %q: want COMPONENT=N[,N...], e.g. %s=1,2,4", v, KubeAuthProxyOAuth)
	}
	out := ScaleSteps{Component: strings.TrimSpace(name)}
	seen := map[int]bool{}
	for _, n := range strings.Split(list, ",") {
		s, err := ParseScale(out.Component + "=" + n)
		if err != nil {
			return ScaleSteps{}, err
		}
		if seen[s.Replicas] {
			return ScaleSteps{}, fmt.Errorf("replicas %q: %d given twice", v, s.Replicas)
		}
		seen[s.Replicas] = true
		out.Replicas = append(out.Replicas, s.Replicas)
	}
	return out, nil
}
