//go:build integration

package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/image"
)

// TestMain lets the test binary be the cluster's supervisor.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == SupervisorArg {
		os.Exit(Supervise(os.Args[2]))
	}
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(upAndWait(dir))
	}
	os.Exit(m.Run())
}

func TestClusterRunsPodsAndLeavesHostClean(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (namespaces, mounts, cgroups)")
	}
	ctx := context.Background()
	var imgs []string
	for _, n := range []string{"pause", "http-echo", "kube-rbac-proxy", "haproxy", "prometheus", "oauth2-proxy", "envoy"} {
		img, _, err := image.Build(ctx, n, image.Options{})
		if err != nil {
			t.Fatalf("building image %s: %v", n, err)
		}
		imgs = append(imgs, img.Path)
	}
	dir := t.TempDir()
	sysBefore := readSysctls(t)
	start := time.Now()
	c, err := Up(ctx, Options{Dir: dir, Images: imgs, Out: testWriter{t}})
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Logf("Up took %s", time.Since(start))
	downed := false
	defer func() {
		if !downed {
			c.Down(ctx)
		}
	}()
	if st, err := os.Stat(c.Kubeconfig()); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig %s: %v, mode %v; want 0600", c.Kubeconfig(), err, st.Mode())
	}
	if o, err := Open(dir); err != nil || o.PID1 != c.PID1 {
		t.Errorf("Open(dir) = %+v, %v; want the running cluster", o, err)
	}
	port := freePort(t)
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	runEchoPod(t, cl, port)
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	if err != nil {
		t.Fatalf("GET the hostNetwork pod: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("pod answered %d, want 200", resp.StatusCode)
	}
	checkQuota(t, dir, "5000")
	t.Run("stack 2x", func(t *testing.T) { checkStack2x(t, c) })
	t.Run("stack 3x", func(t *testing.T) { checkStack3x(t, c) })
	t.Run("prometheus scrapes cadvisor", func(t *testing.T) { checkPrometheus(t, c) })
	ports := c.Ports
	start = time.Now()
	if err := c.Down(ctx); err != nil {
		t.Fatalf("Down: %v", err)
	}
	downed = true
	t.Logf("Down took %s", time.Since(start))
	checkClean(t, dir, ports, sysBefore)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func freePort(t *testing.T) int {
	p, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return p[0]
}

// runEchoPod creates a hostNetwork http-echo pod on 127.0.0.1:port with a
// 50m CPU limit and waits until it serves.
func runEchoPod(t *testing.T, cl *Client, port int) {
	ref := image.RefFor("", "http-echo", "v1.0.0")
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "echo"},
		"spec": map[string]any{"hostNetwork": true, "containers": []any{map[string]any{
			"name": "echo", "image": ref, "imagePullPolicy": "Never",
			"args":      []string{fmt.Sprintf("-listen=127.0.0.1:%d", port), "-text=hello"},
			"resources": map[string]any{"limits": map[string]any{"cpu": "50m", "memory": "64Mi"}},
		}}}}
	b, _ := json.Marshal(pod)
	code, body, err := cl.Do(context.Background(), "POST", kubeapi.Path("api", "v1", "namespaces", "default", "pods"), "application/json", bytes.NewReader(b))
	if err != nil || code != 201 {
		t.Fatalf("creating pod: %d %s %v", code, body, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	var st map[string]any
	cl.GetJSON(context.Background(), kubeapi.Path("api", "v1", "namespaces", "default", "pods", "echo"), &st)
	t.Fatalf("pod never served on %d: %v", port, st["status"])
}

// checkQuota finds the echo container's cgroup under the cluster's root.
func checkQuota(t *testing.T, dir, want string) {
	root := filepath.Join("/sys/fs/cgroup/cpu", CgroupRoot(dir))
	var found []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "cpu.cfs_quota_us" {
			if b, _ := os.ReadFile(p); strings.TrimSpace(string(b)) == want {
				found = append(found, p)
			}
		}
		return nil
	})
	if len(found) == 0 {
		t.Errorf("no cgroup under %s has cpu.cfs_quota_us %s", root, want)
		return
	}
	period, _ := os.ReadFile(filepath.Join(filepath.Dir(found[0]), "cpu.cfs_period_us"))
	if strings.TrimSpace(string(period)) != "100000" {
		t.Errorf("%s: period %q, want 100000", found[0], period)
	}
}

func readSysctls(t *testing.T) map[string]string {
	m := map[string]string{}
	for _, s := range sysctls {
		b, _ := os.ReadFile("/proc/sys/" + s)
		m[s] = string(b)
	}
	return m
}

func checkClean(t *testing.T, dir string, pt Ports, sysBefore map[string]string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(dir)) {
			t.Errorf("process %s still runs: %q", p, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mi, []byte(dir)) {
		t.Errorf("a mount under %s is left in the host's namespace", dir)
	}
	for _, h := range cgroupHierarchies() {
		if _, err := os.Stat(filepath.Join(h, CgroupRoot(dir))); err == nil {
			t.Errorf("cgroup %s left behind", filepath.Join(h, CgroupRoot(dir)))
		}
	}
	if _, err := os.Stat("/sys/class/net/" + Bridge(dir)); err == nil {
		t.Errorf("bridge %s left behind", Bridge(dir))
	}
	for _, p := range []int{pt.Etcd, pt.APIServer, pt.Kubelet, pt.KubeletHealthz, pt.ControllerManager, pt.Scheduler} {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), 200*time.Millisecond); err == nil {
			c.Close()
			ss, _ := exec.Command("sh", "-c", fmt.Sprintf("ss -ltnpe 'sport = :%d'; echo %+v", p, pt)).CombinedOutput()
			t.Errorf("port %d still listens: %s", p, ss)
		}
	}
	for k, v := range readSysctls(t) {
		if sysBefore[k] != v {
			t.Errorf("sysctl %s changed: %q -> %q", k, sysBefore[k], v)
		}
	}
}

// childEnv makes the test binary a process that brings a cluster up and
// waits to be killed.
const childEnv = "AUTHBENCH_KUBE_TEST_CHILD"

func upAndWait(dir string) int {
	img, _, err := image.Build(context.Background(), "http-echo", image.Options{})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	pause, _, _ := image.Build(context.Background(), "pause", image.Options{})
	if _, err := Up(context.Background(), Options{Dir: dir, Images: []string{pause.Path, img.Path}}); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("UP")
	select {}
}

// TestKilledParentLeavesNoProcessOrMount SIGKILLs the process that
// started a cluster with a running pod: every process and mount goes with
// it; DownDir then removes the pods' cgroups and the bridge.
func TestKilledParentLeavesNoProcessOrMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (namespaces, mounts, cgroups)")
	}
	dir := t.TempDir()
	sysBefore := readSysctls(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 512)
	n, _ := out.Read(line)
	if !strings.HasPrefix(string(line[:n]), "UP") {
		cmd.Process.Kill()
		cmd.Wait()
		DownDir(context.Background(), dir)
		t.Fatalf("child: %s", line[:n])
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	runEchoPod(t, cl, freePort(t))
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for !gone(c.PID1) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := Open(dir); err == nil {
		t.Fatal("the cluster outlived its parent's SIGKILL")
	}
	// The kernel kills the namespace's other processes as its PID 1 dies,
	// but they exit on their own time (a big apiserver takes a moment).
	var left []string
	for time.Now().Before(deadline) {
		if left = processesWith(dir); len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("process outlived the SIGKILL by %s: %s", 15*time.Second, p)
	}
	if mi, _ := os.ReadFile("/proc/self/mountinfo"); bytes.Contains(mi, []byte(dir)) {
		t.Error("a mount under the cluster's dir outlived the SIGKILL")
	}
	leftover := false
	for _, h := range cgroupHierarchies() {
		if _, err := os.Stat(filepath.Join(h, CgroupRoot(dir), "kubepods")); err == nil {
			leftover = true
		}
	}
	t.Logf("pod cgroups left by the killed cluster before DownDir: %v", leftover)
	if err := DownDir(context.Background(), dir); err != nil {
		t.Fatalf("DownDir after SIGKILL: %v", err)
	}
	checkClean(t, dir, c.Ports, sysBefore)
}

func hasQuota(dir, want string) bool {
	found := false
	filepath.WalkDir(filepath.Join("/sys/fs/cgroup/cpu", CgroupRoot(dir)), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "cpu.cfs_quota_us" {
			if b, _ := os.ReadFile(p); strings.TrimSpace(string(b)) == want {
				found = true
			}
		}
		return nil
	})
	return found
}

// processesWith lists the command lines that name dir.
func processesWith(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(dir)) {
			out = append(out, fmt.Sprintf("%s: %q", p, b))
		}
	}
	return out
}
