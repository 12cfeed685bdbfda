package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// waitUp waits for the cluster to be usable, racing every step against
// the supervisor's exit, and imports the images once containerd is up.
func (c *Cluster) waitUp(ctx context.Context, o Options, start time.Time) error {
	p := paths{c.Dir}
	steps := []struct {
		what string
		ok   func(ctx context.Context) bool
		then func(ctx context.Context) error
	}{
		{"containerd", marked(p, "containerd"), func(ctx context.Context) error { return c.importImages(ctx, o) }},
		{"kube-apiserver", marked(p, "kube-apiserver"), nil},
		{"kubelet", marked(p, "kubelet"), nil},
	}
	for _, s := range steps {
		if err := c.poll(ctx, s.what, s.ok); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "  %s ready after %s\n", s.what, time.Since(start).Round(time.Millisecond))
		if s.then != nil {
			if err := s.then(ctx); err != nil {
				return err
			}
		}
	}
	cl, err := c.Client()
	if err != nil {
		return err
	}
	if err := c.poll(ctx, "node Ready", cl.nodeReady); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "  node Ready after %s\n", time.Since(start).Round(time.Millisecond))
	if err := c.poll(ctx, "default ServiceAccount", cl.defaultSA); err != nil {
		return err
	}
	return nil
}

func marked(p paths, name string) func(context.Context) bool {
	return func(context.Context) bool {
		_, err := os.Stat(p.readyMark(name))
		return err == nil
	}
}

// poll waits for ok, failing when the supervisor exits or ctx ends; the
// error names the logs to read.
func (c *Cluster) poll(ctx context.Context, what string, ok func(context.Context) bool) error {
	for {
		if ok(ctx) {
			return nil
		}
		select {
		case <-c.exited:
			return fmt.Errorf("cluster in %s stopped while waiting for %s: %s", c.Dir, what, c.failure())
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (logs in %s/logs)", what, ctx.Err(), c.Dir)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// failure is the supervisor log's last lines.
func (c *Cluster) failure() string {
	b, _ := os.ReadFile(paths{c.Dir}.log("supervisor"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "; ") + " (logs in " + c.Dir + "/logs)"
}

// importImages imports the OCI tarballs with ctr inside the namespace
// (run from the host, ctr would put its fifos in the host's /run).
func (c *Cluster) importImages(ctx context.Context, o Options) error {
	for _, img := range o.Images {
		if err := c.Ctr(ctx, "images", "import", img); err != nil {
			return fmt.Errorf("importing %s: %w", img, err)
		}
	}
	return nil
}

// Ctr runs `ctr -n k8s.io ARGS...` against the cluster's containerd.
func (c *Cluster) Ctr(ctx context.Context, args ...string) error {
	argv := append([]string{"-t", strconv.Itoa(c.PID1), "-m", "-p", "ctr", "-a", "/run/containerd/containerd.sock", "-n", "k8s.io"}, args...)
	out, err := exec.CommandContext(ctx, "nsenter", argv...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
