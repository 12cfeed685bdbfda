package kube

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab/internal/frontend"
	"github.com/authbench/authbench/pkg/stacks"
)

// edsDir is the lab's directory of its gateways' endpoints files
// (manifests.Lab.EDSDir): a host directory each gateway's pod mounts.
func edsDir(dir string) string { return filepath.Join(dir, "eds") }

// gatewayEndpoints is gateway's endpoints: each replica of its stack's
// ext_authz service and of its route's backend (the sidecar), at their
// 127.0.0.1 ports; count says how many replicas of a component run.
func gatewayEndpoints(dir, gateway string, ports map[string]int, count func(string) int) (stacks.Gateway, error) {
	c, _ := stacks.Lookup(gateway)
	st, _ := stacks.Get(c.Stack)
	ext, ok1 := st.ByRole(stacks.RoleExtAuthz)
	be, ok2 := st.ByRole(stacks.RoleRBACProxy)
	if c.Role != stacks.RoleGateway || !ok1 || !ok2 {
		return stacks.Gateway{}, fmt.Errorf("%s balances no replicas", gateway)
	}
	eps := func(base string) []stacks.Endpoint {
		var out []stacks.Endpoint
		for i := 1; i <= count(base); i++ {
			out = append(out, stacks.Endpoint{Host: stacks.Loopback, Port: ports[stacks.ReplicaName(base, i)]})
		}
		return out
	}
	gw := stacks.Gateway{Name: gateway, Stack: c.Stack, EDSDir: manifests.GatewayEDSDir(edsDir(dir), gateway)}
	e, b := eps(ext.Name), eps(be.Name)
	gw.ExtAuthz, gw.MoreExtAuthz, gw.Backend, gw.MoreBackends = e[0], e[1:], b[0], b[1:]
	return gw, nil
}

// writeEDS writes a gateway's endpoints files into its host directory,
// each atomically (a rename into the directory Envoy watches).
func writeEDS(gw stacks.Gateway) error {
	if err := os.MkdirAll(gw.EDSDir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", gw.EDSDir, err)
	}
	version := int(time.Now().UnixMilli())
	for path, ce := range gw.EDSFiles(version) {
		if err := stacks.RenderTo(path, stacks.ConfigEDS, ce); err != nil {
			return err
		}
	}
	return nil
}

// writeAllEDS writes the endpoints files of the stacks' gateways, each
// component at one replica: before the gateways' pods start.
func writeAllEDS(dir string, names []string, ports map[string]int) error {
	for _, st := range names {
		s, _ := stacks.Get(st)
		gw, ok := s.ByRole(stacks.RoleGateway)
		if !ok {
			continue
		}
		g, err := gatewayEndpoints(dir, gw.Name, ports, func(string) int { return 1 })
		if err == nil {
			err = writeEDS(g)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// edsWait bounds how long a gateway's pod may take to load new endpoints.
var edsWait = frontend.Wait{Within: 20 * time.Second, Every: 100 * time.Millisecond}

// reroute points a gateway at the current replicas by rewriting its
// endpoints files, and waits until its admin interface (on the host's
// loopback: hostNetwork) lists exactly them. Envoy takes them live, as on
// the processes platform: no restart, no dropped request.
func reroute(ctx context.Context, gw stacks.Gateway, admin int) error {
	if err := writeEDS(gw); err != nil {
		return err
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	url := fmt.Sprintf("http://%s:%d/clusters", stacks.Loopback, admin)
	return frontend.WaitEndpoints(ctx, hc, url, gw, edsWait)
}
