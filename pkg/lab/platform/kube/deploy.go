package kube

import (
	"context"
	"crypto/tls"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"net/http"
	"os"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/keycloak"
	"github.com/authbench/authbench/pkg/stacks"
)

// deployAndCheck applies the stacks and the Prometheus, waits for them,
// checks the whole auth chain with alice's token, and records the lab.
func (r *upRun) deployAndCheck(ctx context.Context, cl *cluster.Cluster, kc keycloak.Config, t0 time.Time) error {
	c, err := kubeapi.FromKubeconfig(cl.Kubeconfig())
	if err != nil {
		return err
	}
	objs, err := r.apply(ctx, c, cl, kc)
	if err != nil {
		return err
	}
	if err := deploy.WaitAvailable(ctx, c, objs); err != nil {
		return err
	}
	r.logf("stacks available at %.1fs", time.Since(t0).Seconds())
	comps := r.components(cl, kc)
	hc, err := labClient(r.certs.CA)
	if err != nil {
		return err
	}
	if err := r.checkStacks(ctx, hc, cl, kc, comps); err != nil {
		return err
	}
	prom := fmt.Sprintf("http://127.0.0.1:%d", r.ports[portPrometheus])
	if err := waitScraped(ctx, hc, prom); err != nil {
		return err
	}
	if err := r.applyClientRTT(ctx, r.links); err != nil {
		return err
	}
	now := time.Now()
	s := r.state
	setLogs(r.dir, comps)
	comps = append(comps, toxiproxyComponent(r.ports))
	s.Components, s.Targets = comps, clientTargets(r.cfg, r.ports, targets(r.cfg.Stacks, comps))
	s.Notes, s.Links = append(notes(comps, r.cfg.Stacks), standinNotes(r.cfg, comps)...), r.links
	r.recordPool(s)
	s.Authz = r.cfg.Authz()
	s.Prometheus = &lab.LabPrometheus{URL: prom, Settle: promSettle}
	s.Phase, s.ReadyAt = lab.PhaseReady, &now
	if err := writeState(r.dir, s); err != nil {
		return err
	}
	scen, err := lab.ScenarioYAML(s)
	if err != nil {
		return fmt.Errorf("writing scenario: %w", err)
	}
	if err := writeFile(r.dir+"/"+lab.ScenarioFile, scen, 0o644); err != nil {
		return err
	}
	r.logf("kube lab ready in %.1fs", time.Since(t0).Seconds())
	return nil
}

// components are the lab's components with their stand-ins and limits.
func (r *upRun) components(cl *cluster.Cluster, kc keycloak.Config) []lab.ComponentInfo {
	kcURL := ""
	if kc.HTTPSPort > 0 {
		direct := kc
		direct.PublicURL = "" // the component's own entry point, not the link's
		kcURL = keycloak.IssuerURL(direct)
	}
	comps := components(r.cfg.Stacks, r.ports, r.refs, r.versions, cl.Ports.APIServer, kcURL)
	for i := range comps {
		comps[i].Standin = r.cfg.StandinRecord(comps[i].Name)
		for _, l := range r.cfg.Limits {
			if comps[i].Name == l.Component {
				comps[i].Limit = l.String()
			}
		}
	}
	return comps
}

// recordPool names the token pool in the state (never a token): the
// scenario's static-token targets then send the pool's tokens.
func (r *upRun) recordPool(s *lab.State) {
	n := r.cfg.TokenPool
	if n == 0 {
		s.TokenPool = nil
		return
	}
	s.TokenPool = &lab.TokenPool{Users: n, File: stacks.TokenPoolPath(r.dir), First: stacks.PoolUser(1), Last: stacks.PoolUser(n)}
	s.Notes = append(s.Notes, fmt.Sprintf("token pool: %d static tokens for %s ... %s (group %s, bound like alice) in %s; "+
		"the static-token stacks' scenario targets send them round-robin", n, s.TokenPool.First, s.TokenPool.Last,
		stacks.GroupTokenPool, s.TokenPool.File))
}

// apply applies each stack with the lab overlay, and the Prometheus.
func (r *upRun) apply(ctx context.Context, c *deploy.Client, cl *cluster.Cluster, kc keycloak.Config) ([]manifests.Object, error) {
	serving, err := r.serving()
	if err != nil {
		return nil, err
	}
	// The auth pods reach the kube-apiserver through the apiserver link.
	overlay := &manifests.Lab{Ports: manifests.Ports{}, APIServerPort: r.ports[stacks.PortToxiproxyAPIServer]}
	for n, p := range r.ports {
		overlay.Ports[n] = p
	}
	var oidc manifests.OIDC
	if kc.HTTPSPort > 0 {
		cookie, err := readSecret(r.sec.CookieSecret)
		if err != nil {
			return nil, err
		}
		ca, err := os.ReadFile(r.certs.CA)
		if err != nil {
			return nil, err
		}
		oidc = manifests.OIDC{IssuerURL: keycloak.IssuerURL(kc), ClientID: stacks.OIDCClientID,
			ClientSecret: kc.ClientSecret, CookieSecret: cookie, CA: ca}
	}
	var all []manifests.Object
	for _, st := range r.cfg.Stacks {
		objs, err := deploy.Stack(ctx, c, deploy.StackOptions{Stack: st, Lab: overlay, OIDC: oidc, InstallCRDs: true,
			Authz:  manifests.Authz{Timeout: r.cfg.AuthzTimeout, FailureMode: r.cfg.AuthzFailureMode},
			NoWait: true, Serving: serving, Limits: stackLimits(r.cfg.Limits),
			AuthzAPIQPS: r.cfg.AuthzAPIQPS, AuthzCache: r.cfg.AuthzCache})
		if err != nil {
			return nil, fmt.Errorf("deploying stack %s: %w", st, err)
		}
		all = append(all, objs...)
	}
	mon := manifests.Monitoring(manifests.MonitoringOptions{Image: r.refs["prometheus"], Lab: true,
		Listen: fmt.Sprintf("127.0.0.1:%d", r.ports[portPrometheus]), Interval: scrapeInterval,
		KubeletAddr: fmt.Sprintf("127.0.0.1:%d", cl.Ports.Kubelet)})
	if err := deploy.Apply(ctx, c, mon, deploy.ApplyOptions{}); err != nil {
		return nil, fmt.Errorf("deploying prometheus: %w", err)
	}
	return append(all, mon...), nil
}

// serving is the lab's server certificate: one CA for the stacks and
// Keycloak, as on the processes platform (the scenario names one CA).
func (r *upRun) serving() (*manifests.TLS, error) {
	var t manifests.TLS
	var err error
	for _, f := range []struct {
		dst  *[]byte
		path string
	}{{&t.Cert, r.certs.Server}, {&t.Key, r.certs.ServerKey}, {&t.CA, r.certs.CA}} {
		if *f.dst, err = os.ReadFile(f.path); err != nil {
			return nil, fmt.Errorf("reading the lab's certificates: %w", err)
		}
	}
	return &t, nil
}

// stackLimits turns lab limits into the Deployments' resources.limits.
func stackLimits(limits []lab.Limit) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, l := range limits {
		m := map[string]string{}
		if l.MilliCPU > 0 {
			m["cpu"] = fmt.Sprintf("%dm", l.MilliCPU)
		}
		if l.MemoryBytes > 0 {
			m["memory"] = fmt.Sprint(l.MemoryBytes)
		}
		out[l.Component] = m
	}
	return out
}

// labClient trusts only the lab's CA.
func labClient(caFile string) (*http.Client, error) {
	pool, err := capool.File(caFile, false)
	if err != nil {
		return nil, fmt.Errorf("reading lab CA: %w", err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	return &http.Client{Transport: httpclient.Refuse(tr), Timeout: 10 * time.Second, CheckRedirect: httpclient.NoRedirect}, nil
}
