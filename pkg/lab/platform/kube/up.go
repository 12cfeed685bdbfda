package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/lab/keycloak"
	"github.com/authbench/authbench/pkg/stacks"
)

// Port names besides the stacks' (manifests.PortNames).
const portPrometheus = "prometheus"

// Prometheus settings: cAdvisor refreshes a container's counters every
// cluster.Housekeeping (1 s), so a window's last values land up to a
// scrape plus a housekeeping interval after it ends; the settle leaves
// twice that, and the sampler waits longer for a counter still short of
// the window's end.
const (
	scrapeInterval = "1s"
	promSettle     = "4s"
)

// upRun is one Up call.
type upRun struct {
	dir   string
	cfg   lab.Config
	out   io.Writer
	certs stacks.Certs
	sec   stacks.Secrets
	ports map[string]int
	refs  map[string]string // image name -> reference
	// versions are what each image's program says its version is.
	versions map[string]string
	// auditPolicy is the apiserver's audit policy file.
	auditPolicy string
	// links are the fault proxy's links, once the cluster's apiserver
	// port is known.
	links []lab.LinkInfo
	state *lab.State
}

// Up starts the cluster, Keycloak in its namespace, the stacks and the
// Prometheus, and returns the lab's state once alice gets 200 through
// every stack. On failure nothing is left running.
func (Platform) Up(ctx context.Context, dir string, o lab.UpOptions) (*lab.State, error) {
	if o.Foreground {
		return nil, fmt.Errorf("lab up --platform kube: --foreground is not supported (the cluster runs detached; lab down stops it)")
	}
	r := &upRun{dir: dir, cfg: o.Config, out: o.Out}
	if r.out == nil {
		r.out = io.Discard
	}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ReadyTimeout)
	defer cancel()
	if err := r.start(ctx); err != nil {
		_ = cluster.DownDir(context.Background(), ClusterDir(dir))
		waitClosed(r.ports[stacks.Keycloak], 10*time.Second)
		waitClosed(r.ports[stacks.Toxiproxy], 10*time.Second)
		endFaults(dir, r.out)
		r.state.Phase, r.state.Error = lab.PhaseFailed, err.Error()
		_ = writeState(dir, r.state)
		return nil, err
	}
	return r.state, nil
}

func (r *upRun) logf(format string, args ...any) {
	fmt.Fprintf(r.out, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// prepare checks no lab runs, completes the config, cleans what a killed
// lab left, and makes certificates, secrets and ports.
func (r *upRun) prepare() error {
	if err := os.MkdirAll(filepath.Join(r.dir, "logs"), 0o700); err != nil {
		return fmt.Errorf("creating lab dir: %w", err)
	}
	if err := os.Chmod(r.dir, 0o700); err != nil {
		return fmt.Errorf("securing lab dir: %w", err)
	}
	if c, err := cluster.Open(ClusterDir(r.dir)); err == nil {
		return fmt.Errorf("%w in %s (kube lab, cluster supervisor pid %d): `authbench lab down --lab-dir %s` stops it",
			lab.ErrAlreadyRunning, r.dir, c.PID1, r.dir)
	}
	if lock.Alive(r.dir) {
		return fmt.Errorf("%w in %s (processes platform, supervisor pid %d): `authbench lab down --lab-dir %s` stops it",
			lab.ErrAlreadyRunning, r.dir, lock.Holder(r.dir), r.dir)
	}
	err := complete(&r.cfg)
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(r.dir, lab.RequestFile), r.cfg); err != nil {
		return err
	}
	// The pod cgroups and bridge a killed lab left behind.
	if err := cluster.DownDir(context.Background(), ClusterDir(r.dir)); err != nil {
		return fmt.Errorf("cleaning up after the previous kube lab: %w", err)
	}
	// The faults of a previous lab that died ended with its fault proxy.
	endFaults(r.dir, r.out)
	if r.certs, err = stacks.EnsureCerts(r.dir); err != nil {
		return err
	}
	if r.sec, err = stacks.EnsureSecrets(r.dir); err != nil {
		return err
	}
	// The pool's users join the token-auth file the apiserver reads.
	if err := stacks.EnsureTokenPool(r.sec, r.cfg.TokenPool); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(r.dir, lab.AuditLog)) // the previous lab's
	if r.auditPolicy, err = stacks.WriteAuditPolicy(r.dir); err != nil {
		return err
	}
	return r.allocatePorts()
}

// complete fills the config's defaults as every platform does, and
// resolves each limit to the pod components it names.
func complete(c *lab.Config) error {
	if err := c.Complete(); err != nil {
		return err
	}
	var limits []lab.Limit
	for _, l := range c.Limits {
		hit := byProgram(c.Stacks, l.Component)
		if len(hit) == 0 {
			return fmt.Errorf("--limit %s: no such component in the kube lab; components: %s",
				l.Component, strings.Join(limitable(c.Stacks), ", "))
		}
		for _, n := range hit {
			limits = append(limits, lab.Limit{Component: n, MilliCPU: l.MilliCPU, MemoryBytes: l.MemoryBytes})
		}
	}
	c.Limits = limits
	return nil
}

// byProgram resolves a limit's name to components: the component of that
// name, or else every component running that program ("http-echo").
func byProgram(names []string, name string) []string {
	var hit []string
	for _, s := range names {
		for _, c := range stacks.Components(s) {
			if c.Name == name {
				return []string{name}
			}
			if c.Program == name {
				hit = append(hit, c.Name)
			}
		}
	}
	return hit
}

func limitable(names []string) []string {
	var out []string
	for _, s := range names {
		for _, c := range stacks.Components(s) {
			out = append(out, c.Name)
		}
	}
	return out
}

func (r *upRun) allocatePorts() error {
	names := append([]string{portPrometheus}, faultproxy.PortNames(r.cfg)...)
	for _, s := range r.cfg.Stacks {
		names = append(names, stacks.PortNames(s)...)
	}
	if has(r.cfg.Stacks, stacks.Stack3x) {
		names = append(names, stacks.Keycloak)
	}
	if err := ports.ValidatePinned(r.cfg.Ports, names); err != nil {
		return err
	}
	used, err := ports.Allocate(names, r.cfg.Ports, ports.Read(r.dir))
	if err != nil {
		return err
	}
	r.ports = used
	return writeJSON(filepath.Join(r.dir, ports.File), used)
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'), 0o644)
}

// start runs everything in order; Keycloak starts as soon as the cluster's
// namespace exists, in parallel with the cluster's own start.
func (r *upRun) start(ctx context.Context) error {
	t0 := time.Now()
	r.state = &lab.State{Dir: r.dir, Phase: lab.PhaseStarting, Supervisor: os.Getpid(), Started: t0,
		Stacks: r.cfg.Stacks, Cgroups: "kubelet (cgroupfs)", Ports: r.ports, CACert: r.certs.CA}
	if err := writeState(r.dir, r.state); err != nil {
		return err
	}
	r.logf("starting the kube lab in %s: stacks %v", r.dir, r.cfg.Stacks)
	imgs, err := image.BuildAll(ctx, image.Options{})
	if err != nil {
		return fmt.Errorf("building the lab's images: %w", err)
	}
	r.refs, r.versions = map[string]string{}, map[string]string{}
	var paths []string
	for _, i := range imgs {
		r.refs[i.Name], r.versions[i.Name], paths = i.Ref, i.Version, append(paths, i.Path)
	}
	r.logf("images ready (%d) in %.1fs", len(imgs), time.Since(t0).Seconds())
	if err := writeImages(r.dir, r.refs); err != nil {
		return err
	}
	kc := make(chan error, 1)
	var kcCfg keycloak.Config
	if has(r.cfg.Stacks, stacks.Stack3x) {
		if kcCfg, err = keycloakConfig(r.dir, r.ports, r.certs, r.sec, r.cfg.AccessTokenLifespan); err != nil {
			return err
		}
		go func() { kc <- startKeycloak(ctx, r.dir, kcCfg) }()
	} else {
		kc <- nil
	}
	cl, err := cluster.Up(ctx, cluster.Options{Dir: ClusterDir(r.dir), Images: paths, Detach: true, Out: r.out,
		APIServerArgs: r.apiserverArgs(kcCfg), Timeout: r.cfg.ReadyTimeout})
	if err != nil {
		return fmt.Errorf("starting the lab's cluster: %w", err)
	}
	r.state.Supervisor = cl.PID1
	r.links = faultproxy.Links(r.cfg, r.ports, cl.Ports.APIServer)
	if err := startToxiproxy(ctx, r.dir, cl.PID1, r.ports, r.links); err != nil {
		return err
	}
	r.logf("fault proxy ready at %.1fs", time.Since(t0).Seconds())
	if err := <-kc; err != nil {
		return err
	}
	r.logf("keycloak ready at %.1fs", time.Since(t0).Seconds())
	return r.deployAndCheck(ctx, cl, kcCfg, t0)
}

// apiserverArgs: static tokens playing OpenShift OAuth tokens (2x,
// 3x-oauth, the token pool), and
// Keycloak as the OIDC issuer (3x), as on the processes platform.
// Its audit log of the proxies' reviews is where runs count them.
func (r *upRun) apiserverArgs(kc keycloak.Config) []string {
	args := []string{"--token-auth-file=" + r.sec.TokenAuthFile,
		"--audit-policy-file=" + r.auditPolicy, "--audit-log-path=" + filepath.Join(r.dir, lab.AuditLog),
		"--audit-log-maxsize=100", "--audit-log-maxbackup=1"}
	if kc.HTTPSPort > 0 {
		args = append(args, stacks.OIDCArgs(keycloak.IssuerURL(kc), r.certs.CA)...)
	}
	return args
}

func itoa(i int) string { return strconv.Itoa(i) }
