package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNotRunning is returned by Open when no cluster runs in the directory.
var ErrNotRunning = errors.New("no cluster is running")

// Open finds the cluster running in dir.
func Open(dir string) (*Cluster, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(paths{abs}.state())
	if err != nil {
		return nil, fmt.Errorf("%w in %s", ErrNotRunning, abs)
	}
	var c Cluster
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("reading %s: %w", paths{abs}.state(), err)
	}
	if !alive(c.PID1, abs) {
		return nil, fmt.Errorf("%w in %s (supervisor pid %d is gone)", ErrNotRunning, abs, c.PID1)
	}
	return &c, nil
}

// alive says whether pid is still this directory's supervisor (a pid
// reused by another program does not count).
func alive(pid int, dir string) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), SupervisorArg) && strings.Contains(string(b), dir)
}

// Down stops the cluster: SIGKILL to the namespace's PID 1 ends every
// process in it (containers included) and every mount; then the pods'
// cgroups and the CNI bridge, which live in the host's hierarchy and
// network namespace, are removed. Down of a stopped cluster cleans up too.
func (c *Cluster) Down(ctx context.Context) error {
	if c.PID1 > 0 && alive(c.PID1, c.Dir) {
		syscall.Kill(c.PID1, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	// PID 1 of a namespace turns zombie only once the kernel has killed and
	// reaped every other process in it; its cmdline empties before that.
	for (!gone(c.PID1) || processExists(c.UnsharePID, "unshare")) && time.Now().Before(deadline) {
		if c.exited != nil {
			select {
			case <-c.exited:
			case <-time.After(20 * time.Millisecond):
			}
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !gone(c.PID1) {
		return fmt.Errorf("the cluster's supervisor (pid %d) outlived SIGKILL for 30s", c.PID1)
	}
	os.Remove(paths{c.Dir}.state())
	c.waitPortsClosed(5 * time.Second)
	return cleanHost(c.Dir)
}

// waitPortsClosed waits for the kernel to close the dead components'
// listeners, which can outlive the namespace's PID 1 by a moment.
func (c *Cluster) waitPortsClosed(max time.Duration) {
	pt := c.Ports
	deadline := time.Now().Add(max)
	for _, p := range []int{pt.Etcd, pt.EtcdPeer, pt.APIServer, pt.ControllerManager, pt.Scheduler, pt.Kubelet, pt.KubeletHealthz} {
		for p > 0 && time.Now().Before(deadline) {
			conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), 100*time.Millisecond)
			if err != nil {
				break
			}
			conn.Close()
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func processExists(pid int, name string) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return err == nil && strings.TrimSpace(string(b)) == name
}

// DownDir stops the cluster in dir, or cleans what a killed one left.
func DownDir(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	c := &Cluster{Dir: abs}
	if b, err := os.ReadFile(paths{abs}.state()); err == nil {
		json.Unmarshal(b, c)
	}
	if !alive(c.PID1, abs) {
		c.PID1, c.UnsharePID = 0, 0 // stale pids, maybe reused: never signal or wait for them
	}
	return c.Down(ctx)
}

// cgroupHierarchies are the mounted cgroup hierarchies (v1 controllers,
// or the single v2 one).
func cgroupHierarchies() []string {
	ents, _ := os.ReadDir("/sys/fs/cgroup")
	var hs []string
	for _, e := range ents {
		if e.IsDir() {
			hs = append(hs, filepath.Join("/sys/fs/cgroup", e.Name()))
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		hs = []string{"/sys/fs/cgroup"}
	}
	return hs
}

// makeCgroupRoot creates the cluster's cgroup root in every hierarchy (the
// kubelet refuses a cgroupRoot that does not exist), cpuset filled in.
func makeCgroupRoot(dir string) error {
	for _, h := range cgroupHierarchies() {
		d := filepath.Join(h, CgroupRoot(dir))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("creating cgroup %s: %w", d, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if v, err := os.ReadFile(filepath.Join(h, f)); err == nil {
				os.WriteFile(filepath.Join(d, f), v, 0o644)
			}
		}
		// On a real node the kubelet gives kubepods the node's CPUs as
		// cgroup v1 shares (1024 each); the root we put above it would
		// otherwise weigh as one task-sized group against every host process.
		if _, err := os.Stat(filepath.Join(d, "cpu.shares")); err == nil {
			os.WriteFile(filepath.Join(d, "cpu.shares"), []byte(strconv.Itoa(1024*runtime.NumCPU())), 0o644)
		}
	}
	return nil
}

// cleanHost removes the cluster's cgroup tree (deepest first; retried while
// the killed processes' cgroups drain) and its CNI bridge.
func cleanHost(dir string) error {
	var errs []error
	for _, h := range cgroupHierarchies() {
		if err := removeCgroupTree(filepath.Join(h, CgroupRoot(dir))); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := os.Stat("/sys/class/net/" + Bridge(dir)); err == nil {
		if out, err := exec.Command("ip", "link", "delete", Bridge(dir)).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("deleting bridge %s: %v: %s", Bridge(dir), err, out))
		}
	}
	return errors.Join(errs...)
}

func removeCgroupTree(root string) error {
	if _, err := os.Stat(root); err != nil {
		return nil
	}
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		var dirs []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, e error) error {
			if e == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		err = nil
		for _, d := range dirs {
			if e := syscall.Rmdir(d); e != nil && !errors.Is(e, syscall.ENOENT) {
				err = fmt.Errorf("removing cgroup %s: %w", d, e)
			}
		}
		if err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// gone reports whether pid has exited: no such process, or a zombie.
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}
