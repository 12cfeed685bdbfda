//go:build integration

package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/cluster"
)

// registryPassword is testdata/registry/htpasswd's user "pusher" (bcrypt
// $2b$): a test credential of a registry on loopback.
const registryPassword = "Reg1stry-pw-7c41e0d9"

// testRegistry is the CNCF distribution registry on 127.0.0.1 with basic
// auth, its storage and log in a temporary directory.
type testRegistry struct {
	host, log string
}

func startRegistry(t *testing.T) testRegistry {
	t.Helper()
	bin := testenv.NeedTools(t, toolcache.ToolPath, "`authbench lab install --optional` builds it", toolcache.RegistryName)[0]
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	abs, _ := filepath.Abs("testdata/registry/htpasswd")
	cfg := fmt.Sprintf(`version: 0.1
log: {level: info}
storage: {filesystem: {rootdirectory: %s/data}}
http: {addr: %q, secret: test-only-secret}
auth: {htpasswd: {realm: authbench-test, path: %s}}
`, dir, host, abs)
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testRegistry{host: host, log: filepath.Join(dir, "registry.log")}
	logf, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.yml"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none") // no trace export attempts to localhost:4318
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); logf.Close() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return r
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(r.log)
			t.Fatalf("the registry did not answer 401 on /v2/ (%v)\n%s", err, b)
		}
	}
}

// authbench runs the binary with the registry password in its
// environment and no docker or podman login; out collects every output.
func authbench(t *testing.T, out *strings.Builder, args ...string) (stdout string, code int) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), image.PasswordEnv+"="+registryPassword, "HOME="+home,
		"DOCKER_CONFIG="+home, "REGISTRY_AUTH_FILE=", "XDG_RUNTIME_DIR="+home)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	fmt.Fprintf(out, "$ authbench %s\n%s%s", strings.Join(args, " "), so.String(), se.String())
	t.Logf("authbench %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), so.String(), se.String())
	return so.String(), cmd.ProcessState.ExitCode()
}

// TestPushThenPodsPullByDigest pushes this binary's image to a real
// registry with basic auth, then runs --pods 2 on a kube lab cluster that
// has no authbench image imported: the pods can only run by pulling it,
// by digest, from the registry. The password shows nowhere.
func TestPushThenPodsPullByDigest(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the kube lab's namespaces, mounts, cgroups)")
	}
	reg := startRegistry(t)
	var out strings.Builder
	repo := reg.host + "/team/authbench"
	for _, refused := range []struct{ flag, why string }{{"--quiet", "refusing plain HTTP"}, {"--insecure-registry", "401"}} {
		args := []string{"image", "push", repo, refused.flag}
		if refused.flag == "--quiet" {
			args = args[:3] // plain HTTP not allowed: refused before any credential is sent
		}
		if _, code := authbench(t, &out, args...); code == 0 || !strings.Contains(out.String(), refused.why) {
			t.Fatalf("authbench %s: exit %d, want a failure saying %q", strings.Join(args, " "), code, refused.why)
		}
	}
	stdout, code := authbench(t, &out, "image", "push", repo, "--insecure-registry", "--registry-user", "pusher")
	pinned := strings.TrimSpace(stdout)
	if code != 0 || !strings.HasPrefix(pinned, repo+"@sha256:") {
		t.Fatalf("image push: exit %d, stdout %q; want %s@sha256:...", code, stdout, repo)
	}
	c, secret := podCluster(t, reg)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer echo.Close()
	runs := t.TempDir()
	_, code = authbench(t, &out, "run", "--pods", "2", "--lab-dir", c.Dir, "-n", "200", "-c", "4", "--out", runs,
		"--image-registry", reg.host+"/team", "--insecure-registry", "--registry-user", "pusher",
		"--image-pull-secret", secret, echo.URL)
	if code != 0 {
		t.Fatalf("run --pods 2 exited %d\n%s", code, out.String())
	}
	checkPinnedRun(t, runs, pinned, out.String())
	logb, _ := os.ReadFile(reg.log)
	if !pulledByContainerd(string(logb), "GET /v2/team/authbench/manifests/"+strings.TrimPrefix(pinned, repo+"@")) {
		t.Errorf("the registry's log shows no pull by containerd of the manifest by digest %s", pinned)
	}
	out.Write(logb)
	if strings.Contains(out.String(), registryPassword) {
		t.Error("the password is in an output or the registry's log")
	}
	c.Down(context.Background()) // no live mounts under the directory searched
	for _, dir := range []string{runs, c.Dir} {
		assertNoPassword(t, dir, filepath.Join(c.Dir, "etcd"))
	}
}

// podCluster is a kube lab cluster with only the pause image imported,
// its containerd pointed at the plain-HTTP test registry, and a pull
// secret for it.
func podCluster(t *testing.T, reg testRegistry) (*cluster.Cluster, string) {
	t.Helper()
	ctx := context.Background()
	pause, _, err := image.Build(ctx, "pause", image.Options{Authbench: binary})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Up(ctx, cluster.Options{Dir: filepath.Join(t.TempDir(), "kube"), Images: []string{pause.Path},
		Supervisor: []string{binary, cluster.SupervisorArg}})
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	if err := c.TrustPlainHTTPRegistry(reg.host); err != nil {
		t.Fatal(err)
	}
	const name = "registry-pull"
	auth := base64.StdEncoding.EncodeToString([]byte("pusher:" + registryPassword))
	cfg, _ := json.Marshal(map[string]any{"auths": map[string]any{reg.host: map[string]string{"auth": auth}}})
	secret, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
		"metadata": map[string]string{"name": name, "namespace": "default"},
		"data":     map[string]string{".dockerconfigjson": base64.StdEncoding.EncodeToString(cfg)}})
	api, err := kubeapi.FromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	code, body, err := api.Do(ctx, http.MethodPost, kubeapi.Path("api", "v1", "namespaces", "default", "secrets"),
		"application/json", strings.NewReader(string(secret)))
	if err != nil || code != http.StatusCreated {
		t.Fatalf("creating the pull secret: %d %v %s", code, err, body)
	}
	return c, name
}

// checkPinnedRun: the run directory's run.json names the image by the
// digest image push printed, and the run said the registry had it.
func checkPinnedRun(t *testing.T, runs, pinned, out string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(runs, "*", "run.json"))
	if len(files) != 1 {
		t.Fatalf("run.json files under %s: %v, want 1", runs, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Plan struct {
			Execution struct{ Image string } `json:"execution"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(b, &run); err != nil || run.Plan.Execution.Image != pinned {
		t.Errorf("run.json's execution image %q (%v), want %s", run.Plan.Execution.Image, err, pinned)
	}
	if !strings.Contains(out, "already in the registry") {
		t.Error("run --image-registry pushed again an image the registry had")
	}
}

// assertNoPassword fails when a regular file under dir holds the
// registry password. etcd's data (skip) holds the pull secret, as a
// cluster's etcd holds every Secret; it is left out.
func assertNoPassword(t *testing.T, dir, skip string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // a file gone or unreadable (a socket's directory) is not a leak
		}
		if d.IsDir() && path == skip {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		n++
		if strings.Contains(string(b), registryPassword) {
			t.Errorf("%s holds the registry password", path)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("searching %s: %v, %d files", dir, err, n)
	}
	t.Logf("no registry password in the %d files under %s", n, dir)
}

// pulledByContainerd says whether an access log line of the registry
// shows containerd making the request.
func pulledByContainerd(log, request string) bool {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, request) && strings.Contains(l, "containerd") {
			return true
		}
	}
	return false
}
