package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Supervise is PID 1 of the cluster's namespace: it mounts the cluster's
// folders over /run and /var, starts the components in order, and returns
// (the namespace then dies with every process in it) when one exits or on
// SIGTERM. The returned value is the process's exit status.
func Supervise(dir string) int {
	s, err := readSpec(paths{dir}.spec())
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		return 1
	}
	if err := setupMounts(s); err != nil {
		fmt.Fprintln(os.Stderr, "supervisor: mounts:", err)
		return 1
	}
	sv := &supervisor{spec: s, pids: map[int]string{}, exited: make(chan string, 1)}
	go sv.reap()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sv.startAll(ctx)
	select {
	case name := <-sv.exited:
		fmt.Fprintf(os.Stderr, "supervisor: %s exited; stopping the cluster\n", name)
		sv.stopAll()
		return 1
	case sig := <-term:
		fmt.Fprintf(os.Stderr, "supervisor: %v; stopping the cluster\n", sig)
		sv.stopAll()
		return 0
	}
}

// setupMounts keeps every path the components hard-code inside the
// cluster's folder: /run is the cluster's own, /var an overlay whose upper
// layer is the cluster's, and the sysctls the kubelet sets are files of
// the cluster's, so the host keeps its values.
func setupMounts(s spec) error {
	p := paths{s.Dir}
	upper, work := filepath.Join(s.Dir, "root", "var-upper"), filepath.Join(s.Dir, "root", "var-work")
	for _, d := range []string{p.hostRun(), upper, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := syscall.Mount(p.hostRun(), "/run", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("binding %s over /run: %w", p.hostRun(), err)
	}
	opts := "lowerdir=/var,upperdir=" + upper + ",workdir=" + work
	if err := syscall.Mount("overlay", "/var", "overlay", 0, opts); err != nil {
		return fmt.Errorf("overlay over /var (%s): %w", opts, err)
	}
	for _, sc := range s.Sysctls {
		f := filepath.Join(s.Dir, "root", "sysctl", strings.ReplaceAll(strings.TrimPrefix(sc, "/proc/sys/"), "/", "."))
		if err := syscall.Mount(f, sc, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s over %s: %w", f, sc, err)
		}
	}
	return nil
}

type supervisor struct {
	spec   spec
	mu     sync.Mutex
	pids   map[int]string // running components by pid
	exited chan string
}

// reap collects every child, components and orphans reparented to PID 1
// (containerd's shims), and reports a component's exit.
func (sv *supervisor) reap() {
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	for range sig {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			sv.mu.Lock()
			name, ok := sv.pids[pid]
			delete(sv.pids, pid)
			sv.mu.Unlock()
			if ok {
				fmt.Fprintf(os.Stderr, "supervisor: %s (pid %d) exited: %v\n", name, pid, ws)
				select {
				case sv.exited <- name:
				default:
				}
			}
		}
	}
}

// startAll starts each component once those it comes after are ready.
func (sv *supervisor) startAll(ctx context.Context) {
	for _, c := range sv.spec.Components {
		for _, a := range c.After {
			if err := waitReady(ctx, sv.component(a).Ready); err != nil {
				return
			}
		}
		if err := sv.start(c); err != nil {
			fmt.Fprintf(os.Stderr, "supervisor: starting %s: %v\n", c.Name, err)
			select {
			case sv.exited <- c.Name:
			default:
			}
			return
		}
		go func() {
			if waitReady(ctx, c.Ready) == nil {
				os.WriteFile(paths{sv.spec.Dir}.readyMark(c.Name), nil, 0o644)
			}
		}()
	}
}

func (sv *supervisor) component(name string) component {
	for _, c := range sv.spec.Components {
		if c.Name == name {
			return c
		}
	}
	return component{}
}

func (sv *supervisor) start(c component) error {
	log, err := os.OpenFile(paths{sv.spec.Dir}.log(c.Name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, sv.spec.Dir
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	sv.pids[cmd.Process.Pid] = c.Name
	fmt.Fprintf(os.Stderr, "supervisor: started %s (pid %d)\n", c.Name, cmd.Process.Pid)
	return nil
}

// stopAll asks every component to stop, then kills what is left; the
// namespace's end kills the rest (containers) anyway.
func (sv *supervisor) stopAll() {
	sv.mu.Lock()
	for pid := range sv.pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	sv.mu.Unlock()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		sv.mu.Lock()
		n := len(sv.pids)
		sv.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitReady polls a readiness target until it answers or ctx ends.
func waitReady(ctx context.Context, target string) error {
	for {
		if probe(ctx, target) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// probeClient skips verification: it only asks loopback listeners of this
// cluster whether they are up, and sends no credential.
var probeClient = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}

func probe(ctx context.Context, target string) bool {
	if sock, ok := strings.CutPrefix(target, "unix:"); ok {
		c, err := net.DialTimeout("unix", sock, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return false
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
