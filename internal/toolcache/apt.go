package toolcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// AptGroup is a set of Debian packages installed by one step.
type AptGroup struct {
	Step     string
	Packages []string
	Optional bool
}

// AptGroups lists the Debian packages the lab uses. nginx is Debian's
// default build, which has auth_request; etcd-client brings etcdctl;
// openjdk-17 and maven run Keycloak and fetch it; python3-venv makes the
// venvs the PyPI wheels (Envoy, HAProxy) are installed into.
func AptGroups() []AptGroup {
	return []AptGroup{
		{Step: "apt", Packages: []string{
			"nginx", "etcd-server", "etcd-client", "hey", "wrk",
			"prometheus", "openjdk-17-jre-headless", "maven", "python3-venv",
		}},
		// Only the HTML report tests need a browser, and it takes over 350 MB.
		{Step: "chromium", Packages: []string{"chromium"}, Optional: true},
	}
}

// daemons are the services whose Debian packages start them on install,
// listening on all interfaces (nginx :80, prometheus :9090) or the lab's
// ports (etcd 2379); the lab runs its own instances on 127.0.0.1.
var daemons = []string{"nginx", "etcd", "prometheus"}

func aptSteps(in *installer) []step {
	var steps []step
	for _, g := range AptGroups() {
		steps = append(steps, step{
			name: g.Step, optional: g.Optional, system: true, verb: "installing",
			probe: func(ctx context.Context) (string, bool, string, error) {
				missing, err := missingPackages(ctx, g.Packages)
				if err != nil {
					return "", false, "", err
				}
				if len(missing) > 0 {
					return "", false, "missing packages " + strings.Join(missing, " "), nil
				}
				return strings.Join(g.Packages, " "), true, "", checkPackages(ctx, g)
			},
			install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
				return in.aptInstall(ctx, g, s, log)
			},
		})
	}
	return steps
}

// missingPackages asks dpkg which of pkgs are not installed; one fast call.
func missingPackages(ctx context.Context, pkgs []string) ([]string, error) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		return nil, errors.New("dpkg-query not found: the lab installs Debian packages and needs Debian 12 or similar")
	}
	args := append([]string{"-W", "-f", "${Package}\t${db:Status-Abbrev}\n"}, pkgs...)
	// dpkg-query exits 1 when a package is unknown; its stdout still lists
	// the known ones, so the exit status is not an error here.
	out, _ := exec.CommandContext(ctx, "dpkg-query", args...).Output()
	return notInstalled(string(out), pkgs), nil
}

// notInstalled returns the pkgs that dpkg-query's "NAME\tSTATUS" lines do
// not show as installed ("ii"); a half-configured package counts as missing.
func notInstalled(dpkgOut string, pkgs []string) []string {
	installed := map[string]bool{}
	for _, l := range strings.Split(dpkgOut, "\n") {
		name, status, ok := strings.Cut(l, "\t")
		if ok && strings.HasPrefix(status, "ii") {
			installed[strings.Split(name, ":")[0]] = true
		}
	}
	var missing []string
	for _, p := range pkgs {
		if !installed[p] {
			missing = append(missing, p)
		}
	}
	return missing
}

// checkPackages verifies what the lab relies on beyond the package being
// present: nginx must have been built with auth_request.
func checkPackages(ctx context.Context, g AptGroup) error {
	if g.Step != "apt" {
		return nil
	}
	nginx, err := systemPath("nginx", "nginx")
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, nginx, "-V").CombinedOutput()
	if err != nil {
		return fmt.Errorf("running nginx -V: %w", err)
	}
	if !bytes.Contains(out, []byte("--with-http_auth_request_module")) {
		return errors.New("nginx lacks the auth_request module: install Debian's nginx package (apt-get install nginx)")
	}
	return nil
}

// aptInstall installs g's missing packages without starting their daemons.
func (in *installer) aptInstall(ctx context.Context, g AptGroup, s stepLog, log io.Writer) (string, error) {
	missing, err := missingPackages(ctx, g.Packages)
	if err != nil {
		return "", err
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("packages %s are missing and installing them needs root: run `sudo apt-get install -y --no-install-recommends %[1]s`, or authbench lab install as root",
			strings.Join(missing, " "))
	}
	restore, err := denyServiceStarts(log)
	if err != nil {
		return "", err
	}
	defer restore()
	s.setDoing("installing " + strings.Join(missing, " ") + " (apt-get)")
	in.aptOnce.Do(func() { in.aptErr = in.aptUpdate(ctx, log) })
	if in.aptErr != nil {
		return "", in.aptErr
	}
	if err := in.aptGetInstall(ctx, missing, log); err != nil {
		return "", err
	}
	stopDaemons(ctx, log)
	if missing, _ := missingPackages(ctx, g.Packages); len(missing) > 0 {
		return "", fmt.Errorf("apt-get succeeded but %s are still not installed", strings.Join(missing, " "))
	}
	return strings.Join(g.Packages, " "), checkPackages(ctx, g)
}

// aptEnv keeps apt from asking questions.
var aptEnv = []string{"DEBIAN_FRONTEND=noninteractive"}

// lockWait makes apt wait for the dpkg lock held by another engineer's apt
// instead of failing at once.
var lockWait = []string{"-o", "DPkg::Lock::Timeout=600"}

func (in *installer) aptUpdate(ctx context.Context, log io.Writer) error {
	args := append(append([]string{}, lockWait...), "update")
	return retry(ctx, log, command{env: aptEnv, name: "apt-get", args: args})
}

func (in *installer) aptGetInstall(ctx context.Context, pkgs []string, log io.Writer) error {
	// A private archive directory: Debian's docker-clean hook deletes every
	// .deb in /var/cache/apt/archives after any dpkg run, so a concurrent apt
	// (another engineer's) would delete our downloads mid-install.
	archives := filepath.Join(in.cache, "apt", "archives")
	if err := os.MkdirAll(filepath.Join(archives, "partial"), 0o755); err != nil {
		return fmt.Errorf("creating apt archive directory: %w", err)
	}
	args := append(append([]string{}, lockWait...),
		"-o", "Dir::Cache::Archives="+archives+"/", "-o", "Acquire::Retries=3",
		// The _apt user cannot enter root's 0700 home; apt would warn and
		// download as root anyway.
		"-o", "APT::Sandbox::User=root",
		"install", "-y", "--no-install-recommends")
	err := retry(ctx, log, command{env: aptEnv, name: "apt-get", args: append(args, pkgs...)})
	// The .debs are not needed once installed; keep the cache small.
	debs, _ := filepath.Glob(filepath.Join(archives, "*.deb"))
	for _, d := range debs {
		os.Remove(d)
	}
	return err
}

// retry runs c up to three times: apt fails when another apt holds a lock
// that DPkg::Lock::Timeout does not cover, or a mirror hiccups.
func retry(ctx context.Context, log io.Writer, c command) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = c.run(ctx, log); err == nil {
			return nil
		}
		fmt.Fprintf(log, "attempt %d failed: %v\n", attempt, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 10 * time.Second):
		}
	}
	return err
}

// policyRCPath is where invoke-rc.d looks for a policy; tests change it.
var policyRCPath = "/usr/sbin/policy-rc.d"

const policyRC = "#!/bin/sh\n# written by authbench lab install while it runs apt-get: start no daemon\nexit 101\n"

// denyServiceStarts installs a policy-rc.d that makes invoke-rc.d refuse
// to start services during apt-get, unless one is already there (Debian
// container images ship one). restore removes only the file written here.
func denyServiceStarts(log io.Writer) (restore func(), err error) {
	if _, err := os.Stat(policyRCPath); err == nil {
		return func() {}, nil
	}
	if err := os.WriteFile(policyRCPath, []byte(policyRC), 0o755); err != nil {
		return nil, fmt.Errorf("writing %s to keep daemons from starting: %w", policyRCPath, err)
	}
	fmt.Fprintf(log, "wrote %s (exit 101) for the duration of apt-get\n", policyRCPath)
	return func() {
		if b, err := os.ReadFile(policyRCPath); err == nil && string(b) == policyRC {
			os.Remove(policyRCPath)
		}
	}, nil
}

// stopDaemons stops and disables the packaged services under systemd, where
// policy-rc.d is not the only way a unit gets started. Errors are logged
// only: a unit that does not exist is not running.
func stopDaemons(ctx context.Context, log io.Writer) {
	if _, err := os.Stat("/run/systemd/system"); err != nil {
		return
	}
	args := append([]string{"disable", "--now"}, daemons...)
	if err := (command{name: "systemctl", args: args}).run(ctx, log); err != nil {
		fmt.Fprintf(log, "ignored: %v\n", err)
	}
}
