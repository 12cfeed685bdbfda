package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab"
)

// limitTimeout bounds one limit change: the patch, and the new pod
// becoming available (Recreate: the old pod goes first).
const limitTimeout = 2 * time.Minute

// SetLimits patches each named component's Deployment, as the migration
// reports' authors did: a strategic-merge patch sets resources.limits.cpu, and
// their JSON patch (remove .../resources/limits/cpu) lifts it; it returns
// once the new pod is available. CPU only: a memory limit is set at
// `lab up --limit`.
func (Platform) SetLimits(ctx context.Context, dir string, limits []lab.Limit) error {
	if len(limits) == 0 {
		return fmt.Errorf("setting lab limits: none given; want COMPONENT=CPU or COMPONENT=%s", lab.NoLimit)
	}
	ctx, s, c, done, err := openLive(ctx, dir, "setting lab limits")
	if err != nil {
		return err
	}
	defer done()
	for _, l := range limits {
		if l.MemoryBytes > 0 {
			return fmt.Errorf("limit %s: the kube lab changes CPU limits live; give memory limits at `lab up --limit`", l.Component)
		}
		idx := matchComponents(s.Components, l.Component)
		if len(idx) == 0 {
			return fmt.Errorf("limit %s: no such component in the kube lab in %s; components: %s",
				l.Component, dir, strings.Join(limitable(s.Stacks), ", "))
		}
		for _, i := range idx {
			if err := setOne(ctx, c, &s.Components[i], l); err != nil {
				_ = writeState(dir, s)
				return err
			}
		}
	}
	setLogs(dir, s.Components) // new pods, new logs
	return writeState(dir, s)
}

func setOne(ctx context.Context, c *deploy.Client, ci *lab.ComponentInfo, l lab.Limit) error {
	d, ctr, _ := manifests.Workload(ci.Name)
	cpu := ""
	if l.MilliCPU > 0 {
		cpu = fmt.Sprintf("%dm", l.MilliCPU)
	}
	if err := deploy.SetCPULimit(ctx, c, ci.Namespace, d, ctr, cpu); err != nil {
		return fmt.Errorf("limiting %s: %w", ci.Name, err)
	}
	ci.Limit = cpu
	return nil
}

// matchComponents returns the pod component named name with its replicas
// (`lab scale`), or else every pod component running that program
// ("http-echo").
func matchComponents(cs []lab.ComponentInfo, name string) []int {
	var own, hit []int
	for i, c := range cs {
		if c.Namespace == "" {
			continue
		}
		if c.Name == name || c.ReplicaOf == name {
			own = append(own, i)
		}
		if c.Program == name {
			hit = append(hit, i)
		}
	}
	if len(own) > 0 {
		return own
	}
	return hit
}
