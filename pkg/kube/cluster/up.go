package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/image"
)

// Cluster is a running cluster.
type Cluster struct {
	Dir   string
	Ports Ports
	// UnsharePID is the host pid of unshare; PID1 the host pid of the
	// namespace's supervisor.
	UnsharePID, PID1 int
	Started          time.Time
	exited           chan struct{} // closed when unshare exits (only for a cluster this process started)
}

// Kubeconfig is the path of the admin kubeconfig (mode 0600).
func (c *Cluster) Kubeconfig() string { return paths{c.Dir}.kubeconfig() }

// Client returns an admin client of the cluster.
func (c *Cluster) Client() (*Client, error) { return NewClient(c.Dir, c.Ports.APIServer) }

// Up starts a cluster in o.Dir and returns once the node is Ready, its
// taints are gone, the default ServiceAccount exists and o.Images are
// imported. On error nothing of the cluster is left running.
func Up(ctx context.Context, o Options) (*Cluster, error) {
	o, err := withDefaults(o)
	if err != nil {
		return nil, err
	}
	if c, err := Open(o.Dir); err == nil {
		return nil, fmt.Errorf("a cluster is already running in %s (supervisor pid %d): run Down first", o.Dir, c.PID1)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	if err := cleanHost(o.Dir); err != nil {
		return nil, err
	}
	c, err := prepare(o)
	if err != nil {
		return nil, err
	}
	if err := c.start(o); err != nil {
		return nil, err
	}
	if err := c.waitUp(ctx, o, start); err != nil {
		c.Down(context.Background())
		return nil, err
	}
	fmt.Fprintf(o.Out, "cluster up in %s (kubeconfig %s)\n", time.Since(start).Round(time.Millisecond), c.Kubeconfig())
	return c, nil
}

func withDefaults(o Options) (Options, error) {
	if o.Dir == "" {
		return o, errors.New("cluster: Options.Dir is required")
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, err
	}
	o.Dir = abs
	if o.Hyperkube == "" {
		if o.Hyperkube, err = toolcache.ToolPath(toolcache.HyperkubeName); err != nil {
			return o, err
		}
	}
	if len(o.Supervisor) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return o, err
		}
		o.Supervisor = []string{exe, SupervisorArg}
	}
	if o.PauseImage == "" {
		o.PauseImage = image.RefFor("", "pause", image.PauseTag)
	}
	if o.Timeout == 0 {
		o.Timeout = 3 * time.Minute
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o, nil
}

// prepare writes the PKI, configs and the supervisor's spec, after removing
// what a previous cluster in the directory left (its data never carries
// over: a cluster starts empty).
func prepare(o Options) (*Cluster, error) {
	for _, d := range []string{"etcd", "containerd", "kubelet", "root", "ready", "pki", "logs", "cni", "kubeconfigs"} {
		if err := os.RemoveAll(filepath.Join(o.Dir, d)); err != nil {
			return nil, fmt.Errorf("clearing %s: %w", d, err)
		}
	}
	for _, d := range []string{"logs", "ready", "etcd"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	pp, err := freePorts(7)
	if err != nil {
		return nil, err
	}
	pt := Ports{Etcd: pp[0], EtcdPeer: pp[1], APIServer: pp[2], ControllerManager: pp[3], Scheduler: pp[4], Kubelet: pp[5], KubeletHealthz: pp[6]}
	if err := writePKI(filepath.Join(o.Dir, "pki")); err != nil {
		return nil, fmt.Errorf("writing the cluster PKI: %w", err)
	}
	d := renderData{Dir: o.Dir, PauseImage: o.PauseImage, Bridge: Bridge(o.Dir), PodSubnet: "10.244.0.0/24", CgroupRoot: CgroupRoot(o.Dir), Ports: pt}
	if err := writeConfigs(o.Dir, d); err != nil {
		return nil, err
	}
	sc, err := writeSysctlFiles(o.Dir)
	if err != nil {
		return nil, err
	}
	if err := makeCgroupRoot(o.Dir); err != nil {
		return nil, err
	}
	s := spec{Dir: o.Dir, Sysctls: sc, Components: components(o.Dir, o.Hyperkube, pt, o.APIServerArgs)}
	if err := writeSpec(paths{o.Dir}.spec(), s); err != nil {
		return nil, err
	}
	return &Cluster{Dir: o.Dir, Ports: pt}, nil
}

// start runs the supervisor as PID 1 of a new PID + mount namespace.
func (c *Cluster) start(o Options) error {
	log, err := os.OpenFile(paths{c.Dir}.log("supervisor"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	args := append([]string{"--pid", "--fork", "--mount", "--propagation", "private", "--mount-proc", "--kill-child=KILL"},
		append(o.Supervisor, c.Dir)...)
	cmd := exec.Command("unshare", args...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if o.Detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting unshare: %w", err)
	}
	c.UnsharePID, c.Started, c.exited = cmd.Process.Pid, time.Now(), make(chan struct{})
	go func() { cmd.Wait(); close(c.exited) }()
	for i := 0; i < 100 && c.PID1 == 0; i++ {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", c.UnsharePID, c.UnsharePID))
		c.PID1, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if c.PID1 == 0 {
		c.Down(context.Background())
		return fmt.Errorf("unshare started no supervisor (log %s)", paths{c.Dir}.log("supervisor"))
	}
	return c.writeState()
}

func (c *Cluster) writeState() error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(paths{c.Dir}.state(), b, 0o600)
}
