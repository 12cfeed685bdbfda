package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// The fault proxy on the kube lab: Toxiproxy as a process beside the
// cluster, in its PID and mount namespace as Keycloak is (nsenter), so
// that `lab down` or a killed supervisor ends it with the cluster. The
// network namespace is the host's, so the hostNetwork pods reach its
// 127.0.0.1 listeners: every auth pod's in-cluster config names the
// apiserver link as KUBERNETES_SERVICE_HOST/PORT, Keycloak's issuer is the
// keycloak link's address, and the client link (when asked) stands in
// front of each stack's entry point, as on the processes platform.

// toxiproxyConfig is the file of the proxies Toxiproxy creates at start
// (its -config), in the lab directory: its command line then names the
// lab, as every other process of the lab's does.
const toxiproxyConfig = "toxiproxy.json"

// toxiproxyLog is Toxiproxy's log, in the lab directory.
const toxiproxyLog = "logs/toxiproxy.log"

// keycloakPublicURL is where every client reaches Keycloak: through the
// keycloak link, so that the tokens' iss is the link's address.
func keycloakPublicURL(ports map[string]int) string {
	return "https://" + stacks.Loopback + ":" + strconv.Itoa(ports[stacks.PortToxiproxyKeycloak])
}

// startToxiproxy runs Toxiproxy in the cluster's namespaces (pid1's) with
// the links' proxies, and returns once its API answers with all of them.
func startToxiproxy(ctx context.Context, dir string, pid1 int, ports map[string]int, ls []lab.LinkInfo) error {
	bin, err := toolcache.ToolPath(stacks.ProgramToxiproxy)
	if err != nil {
		return err
	}
	proxies := faultproxy.Proxies(ls)
	b, err := json.MarshalIndent(proxies, "", "  ")
	if err != nil {
		return err
	}
	cfg := filepath.Join(dir, toxiproxyConfig)
	if err := writeFile(cfg, append(b, '\n'), 0o644); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(dir, toxiproxyLog), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command("nsenter", "-t", strconv.Itoa(pid1), "-m", "-p", "--", bin,
		"-host", stacks.Loopback, "-port", strconv.Itoa(ports[stacks.Toxiproxy]), "-config", cfg)
	// Warn: Toxiproxy's info level logs every connection.
	cmd.Env = append(os.Environ(), "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting toxiproxy in the cluster's namespace: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	api := faultproxy.Lab(ports)
	if err := waitToxiproxy(ctx, api, exited, filepath.Join(dir, toxiproxyLog)); err != nil {
		return err
	}
	// A no-op for the proxies -config made; an error naming the one it
	// could not (a port taken meanwhile).
	if err := api.Populate(ctx, proxies); err != nil {
		return fmt.Errorf("creating the fault proxy's links: %w", err)
	}
	return nil
}

// waitToxiproxy waits for Toxiproxy's API.
func waitToxiproxy(ctx context.Context, api *faultproxy.Client, exited <-chan error, log string) error {
	for {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := api.Version(rctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("toxiproxy exited before it was ready (%v); see %s", werr, log)
		case <-ctx.Done():
			return fmt.Errorf("waiting for toxiproxy: %w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// toxiproxyComponent is the fault proxy in the lab's state, as on the
// processes platform; not a pod, so no scenario samples it.
func toxiproxyComponent(ports map[string]int) lab.ComponentInfo {
	c := stacks.ToxiproxyComponent
	return lab.ComponentInfo{Name: c.Name, Stack: c.Stack, Role: c.Role, Program: c.Program, Plays: c.Plays,
		Version: toolcache.ToxiproxyVersion, Status: lab.StatusRunning,
		URL: fmt.Sprintf("%s://%s:%d", c.Scheme, stacks.Loopback, ports[stacks.Toxiproxy])}
}

// clientTargets sends each target's client through its stack's client
// link, when the lab has one; the layers' own rungs stay direct.
func clientTargets(c lab.Config, ports map[string]int, ts []lab.StackTarget) []lab.StackTarget {
	if !c.ClientLink {
		return ts
	}
	return faultproxy.ClientTargets(ts, ports)
}

// applyClientRTT sets --client-rtt's delay on the client link before the
// lab is ready, and logs it as any fault.
func (r *upRun) applyClientRTT(ctx context.Context, ls []lab.LinkInfo) error {
	f, ok := r.cfg.ClientFault()
	if !ok {
		return nil
	}
	l, _ := (&lab.State{Links: ls}).Link(results.LinkClient)
	if err := faultproxy.Apply(ctx, faultproxy.Lab(r.ports), faultproxy.ProxyNames(l), f); err != nil {
		return fmt.Errorf("setting --client-rtt %s on the client link: %w", r.cfg.ClientRTT, err)
	}
	r.logf("client link: round trip %s added to every entry point (--client-rtt)", r.cfg.ClientRTT)
	return lab.AppendFault(r.dir, f.Event(time.Now()))
}
