//go:build integration

package pods_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// noUring refuses the io_uring syscalls with EPERM and allows the rest:
// what containerd 2.0's RuntimeDefault does to them (it removed them from
// its allow list), without the rest of that profile.
const noUring = `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
  {"names": ["io_uring_setup", "io_uring_enter", "io_uring_register"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}`

// ioPaths: a --pods run takes the I/O path its pods' seccomp profile
// allows, and says so in the merged result, in run.json and in each
// pod's row, with every request counted.
func (e *env) ioPaths(t *testing.T) {
	const rel = "authbench/no-uring.json"
	// The kubelet resolves a Localhost profile under <root-dir>/seccomp.
	prof := filepath.Join(e.c.Dir, "kubelet", "root", "seccomp", rel)
	if err := os.MkdirAll(filepath.Dir(prof), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prof, []byte(noUring), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sc   pods.Seccomp
		want string
	}{
		// The Job sets no seccomp profile and the lab's kubelet runs
		// without seccompDefault: the agent is Unconfined, io_uring_setup
		// succeeds.
		{"as authbench specifies the pod", pods.Seccomp{}, "io_uring"},
		// containerd 1.6 and 1.7 keep io_uring_* in RuntimeDefault's allow
		// list; 2.0 removed them.
		{"runtime default", pods.Seccomp{Type: pods.SeccompRuntimeDefault}, runtimeDefaultPath(t)},
		{"io_uring refused", pods.Seccomp{Type: pods.SeccompLocalhost, Localhost: rel}, "epoll"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { e.ioPathRun(t, tc.sc, tc.want) })
	}
}

// ioPathRun runs a short closed-loop load from 3 pods under sc and
// checks it ran on path want, every request counted.
func (e *env) ioPathRun(t *testing.T, sc pods.Seccomp, want string) {
	log := &syncBuf{t: t}
	const n = 3000
	o, err := e.run(t, e.plan("pods-io-path", plan.Load{Requests: n, Concurrency: 3, Iterations: 1}), e.executorWith(t, log, sc), log, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	r := o.Run.Results[0]
	t.Logf("seccomp %+v: io_path %s, %d requests, %d answered 200", sc, r.IOPath, r.Requests, r.Status["200"])
	if r.IOPath != want {
		t.Errorf("merged io_path %q, want %q", r.IOPath, want)
	}
	if r.Requests != n || r.Status["200"] != n {
		t.Errorf("counted %d requests (%v), want exactly %d answered 200", r.Requests, r.Status, n)
	}
	if r.Pods == nil || r.Pods.Completed != 3 {
		t.Fatalf("pods: %+v; want 3 completed", r.Pods)
	}
	for _, p := range r.Pods.Pods {
		if p.IOPath != want {
			t.Errorf("pod %d ran on %q, want %q", p.Index, p.IOPath, want)
		}
	}
	if got := strings.Count(log.String(), ", io "+want); got != 3 {
		t.Errorf("the log names io %s for %d pods, want 3", want, got)
	}
	b, err := os.ReadFile(filepath.Join(o.Dir, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 1 || run.Results[0].IOPath != want || run.Results[0].Pods == nil || run.Results[0].Pods.Pods[0].IOPath != want {
		t.Errorf("run.json does not say io_path %q for the run and its pods", want)
	}
}

// runtimeDefaultPath is the path a pod under containerd's RuntimeDefault
// takes: io_uring before containerd 2.0, epoll from it.
func runtimeDefaultPath(t *testing.T) string {
	out, err := exec.Command("containerd", "--version").Output()
	if err != nil {
		t.Fatalf("containerd --version: %v", err)
	}
	// "containerd github.com/containerd/containerd 1.6.20~ds1 ..."
	f := strings.Fields(string(out))
	if len(f) < 3 {
		t.Fatalf("containerd --version: %q", out)
	}
	major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[2], "v"), ".", 2)[0])
	if err != nil {
		t.Fatalf("containerd --version: %q: %v", out, err)
	}
	t.Logf("containerd %s", f[2])
	if major < 2 {
		return "io_uring"
	}
	return "epoll"
}
