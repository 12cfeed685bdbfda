package kube

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/lab/keycloak"
	"github.com/authbench/authbench/pkg/stacks"
)

// keycloakConfig is the lab's Keycloak, as the processes platform runs it:
// the same realm, client, users and secrets, and reached through the
// keycloak link (its public URL) by everyone but the lab's own setup.
func keycloakConfig(dir string, ports map[string]int, certs stacks.Certs, sec stacks.Secrets, lifespan time.Duration) (keycloak.Config, error) {
	kcsh, err := toolcache.ToolPath(stacks.ProgramKeycloak)
	if err != nil {
		return keycloak.Config{}, err
	}
	c := keycloak.Config{
		Home: filepath.Dir(filepath.Dir(kcsh)), DataDir: filepath.Join(dir, "data", stacks.Keycloak), HTTPSPort: ports[stacks.Keycloak],
		PublicURL: keycloakPublicURL(ports),
		CertFile:  certs.Server, KeyFile: certs.ServerKey, CAFile: certs.CA,
		AdminUser: stacks.KeycloakAdminUser, Realm: stacks.OIDCRealm, ClientID: stacks.OIDCClientID,
		AccessTokenLifespan: lifespan,
	}
	if c.AdminPassword, err = readSecret(sec.KeycloakAdminPass); err != nil {
		return c, err
	}
	if c.ClientSecret, err = readSecret(sec.ClientSecret); err != nil {
		return c, err
	}
	for _, u := range []string{stacks.UserAlice, stacks.UserBob} {
		pw, err := readSecret(sec.PasswordFile(u))
		if err != nil {
			return c, err
		}
		c.Users = append(c.Users, keycloak.User{Name: u, Password: pw})
	}
	return c, keycloak.Prepare(c)
}

func readSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading secret: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// startKeycloak waits for the cluster's namespace to exist, then runs
// Keycloak in it (nsenter into its PID and mount namespaces), so that the
// namespace's end, by `lab down` or a SIGKILL, ends Keycloak too. It
// returns once Keycloak serves and its realm is configured.
func startKeycloak(ctx context.Context, dir string, c keycloak.Config) error {
	var pid1 int
	for pid1 == 0 {
		if cl, err := cluster.Open(ClusterDir(dir)); err == nil {
			pid1 = cl.PID1
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("starting keycloak: waiting for the cluster's namespace: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	path, args, env := c.Command()
	log, err := os.OpenFile(filepath.Join(dir, "logs", "keycloak.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	argv := append([]string{"-t", strconv.Itoa(pid1), "-m", "-p", "--", path}, args...)
	cmd := exec.Command("nsenter", argv...)
	// The bootstrap admin's password travels in the environment, as on the
	// processes platform; nsenter passes it on.
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = env, log, log, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting keycloak in the cluster's namespace: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := keycloak.Ready(rctx, c)
		cancel()
		if err == nil {
			break
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("keycloak exited before it was ready (%v); see %s", werr, filepath.Join(dir, "logs", "keycloak.log"))
		case <-ctx.Done():
			return fmt.Errorf("waiting for keycloak: %w (last: %v)", ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
	if err := keycloak.Configure(ctx, c); err != nil {
		return fmt.Errorf("configuring keycloak: %w", err)
	}
	return nil
}

// waitClosed waits until nothing listens on 127.0.0.1:port.
func waitClosed(port int, max time.Duration) {
	deadline := time.Now().Add(max)
	for port > 0 && time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(stacks.Loopback, strconv.Itoa(port)), 100*time.Millisecond)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(50 * time.Millisecond)
	}
}
