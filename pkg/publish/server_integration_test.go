//go:build integration

package publish

import (
	"errors"
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

	"github.com/authbench/authbench/internal/toolcache"
)

// searchServer is a real OpenSearch or Elasticsearch started for a test.
type searchServer struct {
	name    string
	url     string
	startup time.Duration
}

// startSearch starts srv from `lab install --optional`'s installation on
// 127.0.0.1 (ports chosen by the server, read from its ports file),
// single-node, 512 MB heap, as SearchUser when root. The server runs in
// its own process group, dies with the test process and is stopped at
// cleanup. It may run in a goroutine: it reports errors instead of
// failing t.
func startSearch(t *testing.T, srv toolcache.SearchServer) (*searchServer, error) {
	if _, err := os.Stat(srv.Bin()); err != nil {
		return nil, fmt.Errorf("%s is not installed (run `authbench lab install --optional`): %v", srv.Name, err)
	}
	home, err := searchHome(t, srv)
	if err != nil {
		return nil, err
	}
	java, err := javaHome()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(home, "server.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(srv.Bin())
	cmd.Dir = home
	cmd.Stdout, cmd.Stderr = logf, logf
	prefix := "OPENSEARCH"
	if srv.Name == "elasticsearch" {
		prefix = "ES"
	}
	cmd.Env = append(os.Environ(), "JAVA_HOME="+java, "ES_JAVA_HOME="+java, "OPENSEARCH_JAVA_HOME="+java,
		prefix+"_JAVA_OPTS=-Xms512m -Xmx512m", prefix+"_PATH_CONF="+filepath.Join(home, "config"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if srv.RunAs() != "" {
		uid, gid, err := toolcache.SearchUserIDs()
		if err != nil {
			return nil, err
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", srv.Name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { stopGroup(cmd.Process.Pid, exited) })
	url, err := awaitSearch(filepath.Join(home, "logs", "http.ports"), exited, 3*time.Minute)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(home, "server.log"))
		return nil, fmt.Errorf("%s did not start: %v\n%s", srv.Name, err, tail(string(log), 3000))
	}
	s := &searchServer{name: srv.Name, url: url, startup: time.Since(start)}
	t.Logf("%s %s up in %s at %s", srv.Name, srv.Version, s.startup.Round(100*time.Millisecond), url)
	return s, nil
}

// searchHome makes the server's config, data and logs directory, owned
// by the user it runs as (a test's TempDir is root's, mode 0700).
func searchHome(t *testing.T, srv toolcache.SearchServer) (string, error) {
	home, err := os.MkdirTemp("", "authbench-"+srv.Name+"-")
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(srv.Dir(), "config"), filepath.Join(home, "config")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying config: %v: %s", err, out)
	}
	yml := fmt.Sprintf(`cluster.name: authbench-test
node.name: node-1
network.host: 127.0.0.1
http.port: 0
transport.port: 0
discovery.type: single-node
node.portsfile: true
path.data: %s/data
path.logs: %s/logs
`, home, home)
	if srv.Name == "elasticsearch" {
		yml += "xpack.security.enabled: false\n"
	}
	if err := os.WriteFile(filepath.Join(home, "config", srv.Name+".yml"), []byte(yml), 0o644); err != nil {
		return "", err
	}
	for _, d := range []string{"data", "logs"} {
		os.Mkdir(filepath.Join(home, d), 0o755)
	}
	if srv.RunAs() != "" {
		uid, gid, err := toolcache.SearchUserIDs()
		if err != nil {
			return "", err
		}
		filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
			if err == nil {
				err = os.Lchown(p, uid, gid)
			}
			return err
		})
	}
	return home, nil
}

func javaHome() (string, error) {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return h, nil
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("finding java (the lab's apt step installs openjdk-17): %w", err)
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(real)), nil
}

// awaitSearch waits for the ports file, then for the cluster to answer,
// racing both against the process's exit.
func awaitSearch(portsFile string, exited <-chan error, limit time.Duration) (string, error) {
	deadline := time.After(limit)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return "", fmt.Errorf("exited: %v", err)
		case <-deadline:
			return "", errors.New("timed out")
		case <-tick.C:
		}
		b, err := os.ReadFile(portsFile)
		if err != nil {
			continue
		}
		addr := strings.TrimSpace(strings.Split(string(b), "\n")[0])
		if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
			return "", fmt.Errorf("server bound %q, want 127.0.0.1", addr)
		}
		url := "http://" + addr
		if resp, err := http.Get(url + "/_cluster/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, nil
			}
		}
	}
}

// stopGroup terminates the process group, then kills what is left.
func stopGroup(pid int, exited <-chan error) {
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
	}
	syscall.Kill(-pid, syscall.SIGKILL)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
