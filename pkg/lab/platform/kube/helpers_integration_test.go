//go:build integration

package kube_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// binary is authbench, built once: the tests drive the lab as a user does.
var binary string

func TestMain(m *testing.M) {
	if os.Geteuid() != 0 {
		fmt.Println("skipping the kube lab tests: they need root (namespaces, mounts, cgroups)")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "kubelab-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "authbench")
	// A fixed path: the authbench image is keyed by the binary's content,
	// which then stays the same from run to run.
	out, err := exec.Command("go", "build", "-trimpath", "-o", binary, "github.com/authbench/authbench/cmd/authbench").CombinedOutput()
	if err != nil {
		fmt.Printf("building authbench: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// authbench runs the binary and fails the test on a non-zero exit.
func authbench(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("authbench %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, tail(stdout.String()), tail(stderr.String()))
	}
	return stdout.String()
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// labUp starts a kube lab in a new directory; Cleanup stops it.
func labUp(t *testing.T, args ...string) (string, *lab.State) {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() { exec.Command(binary, "lab", "down", "--lab-dir", dir).Run() })
	start := time.Now()
	authbench(t, 5*time.Minute, append([]string{"lab", "up", "--platform", "kube", "--lab-dir", dir}, args...)...)
	t.Logf("lab up --platform kube %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	return dir, readState(t, dir)
}

func readState(t *testing.T, dir string) *lab.State {
	t.Helper()
	var s lab.State
	b, err := os.ReadFile(filepath.Join(dir, lab.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func component(t *testing.T, s *lab.State, name string) lab.ComponentInfo {
	t.Helper()
	c, ok := s.Component(name)
	if !ok {
		t.Fatalf("no component %s in the lab's state", name)
	}
	return c
}

func labHTTP(t *testing.T, s *lab.State) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(s.CACert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// status is the HTTP status of GET u with the bearer token (none if "").
func status(t *testing.T, hc *http.Client, u, token string) int {
	t.Helper()
	code, _ := statusDetails(t, hc, u, token)
	return code
}

// statusDetails also returns the gateway's account of an answer it made
// itself (stacks.GatewayDetailsHeader; "" for the upstream's answers).
func statusDetails(t *testing.T, hc *http.Client, u, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(stacks.GatewayDetailsHeader)
}

func secret(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// oidcToken is a password grant for user against the lab's Keycloak.
func oidcToken(t *testing.T, hc *http.Client, dir string, s *lab.State, user string) string {
	t.Helper()
	kc := component(t, s, stacks.Keycloak)
	form := url.Values{"grant_type": {"password"}, "client_id": {stacks.OIDCClientID},
		"client_secret": {secret(t, filepath.Join(dir, "secrets", "keycloak-client-secret"))},
		"username":      {user}, "password": {secret(t, filepath.Join(dir, "secrets", "passwords", user))}, "scope": {"openid"}}
	resp, err := hc.PostForm(kc.URL+"/protocol/openid-connect/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.AccessToken == "" {
		t.Fatalf("password grant for %s: status %d, %v", user, resp.StatusCode, err)
	}
	return body.AccessToken
}

// host is what a lab must leave as it found it.
type host struct {
	sysctls map[string]string
	links   string
}

var sysctls = []string{"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"}

func snapshot(t *testing.T) host {
	h := host{sysctls: map[string]string{}}
	for _, s := range sysctls {
		b, _ := os.ReadFile("/proc/sys/" + s)
		h.sysctls[s] = string(b)
	}
	out, _ := exec.Command("ip", "-o", "link", "show").Output()
	h.links = linkNames(string(out))
	return h
}

func linkNames(out string) string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			names = append(names, strings.TrimSuffix(strings.Split(f[1], "@")[0], ":"))
		}
	}
	return strings.Join(names, " ")
}

// processesOf lists the processes whose command line names dir.
func processesOf(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(dir)) {
			out = append(out, fmt.Sprintf("%s: %q", p, bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return out
}

func mountsOf(dir string) bool {
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	return bytes.Contains(mi, []byte(dir))
}

// cgroupsOf lists the cluster's cgroup roots left in the host's hierarchies.
func cgroupsOf(dir string) []string {
	hs, _ := filepath.Glob("/sys/fs/cgroup/*/" + cluster.CgroupRoot(filepath.Join(dir, "kube")))
	if v2 := "/sys/fs/cgroup/" + cluster.CgroupRoot(filepath.Join(dir, "kube")); exists(v2) {
		hs = append(hs, v2)
	}
	return hs
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// waitGone polls f until it reports nothing, for up to d.
func waitGone(d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for f() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// checkClean wants nothing of the lab in dir left on the host.
func checkClean(t *testing.T, dir string, before host, ports []int) {
	t.Helper()
	if !waitGone(10*time.Second, func() bool { return len(processesOf(dir)) > 0 }) {
		t.Errorf("processes left: %v", processesOf(dir))
	}
	if mountsOf(dir) {
		t.Errorf("a mount under %s is left in the host's namespace", dir)
	}
	if cg := cgroupsOf(dir); len(cg) > 0 {
		t.Errorf("cgroups left: %v", cg)
	}
	after := snapshot(t)
	br := cluster.Bridge(filepath.Join(dir, "kube"))
	had := map[string]bool{}
	for _, l := range strings.Fields(before.links) {
		had[l] = true
	}
	for _, l := range strings.Fields(after.links) {
		// Other labs on this machine come and go; this lab's bridge must not stay.
		if l == br || (!had[l] && !strings.HasPrefix(l, "abk") && !strings.HasPrefix(l, "veth")) {
			t.Errorf("network interface %s left behind", l)
		}
	}
	for k, v := range before.sysctls {
		if after.sysctls[k] != v {
			t.Errorf("sysctl %s changed: %q -> %q", k, v, after.sysctls[k])
		}
	}
	for _, p := range ports {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), 200*time.Millisecond); err == nil {
			c.Close()
			t.Errorf("port %d still listens", p)
		}
	}
}

// labPorts are every port the lab and its cluster listened on.
func labPorts(t *testing.T, dir string, s *lab.State) []int {
	var ports []int
	for _, p := range s.Ports {
		ports = append(ports, p)
	}
	c, err := cluster.Open(filepath.Join(dir, "kube"))
	if err != nil {
		t.Fatalf("the lab's cluster: %v", err)
	}
	pt := c.Ports
	return append(ports, pt.Etcd, pt.EtcdPeer, pt.APIServer, pt.ControllerManager, pt.Scheduler, pt.Kubelet, pt.KubeletHealthz)
}
