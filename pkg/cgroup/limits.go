package cgroup

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// CFS bounds enforced by the kernel: quota at least 1ms, period 1ms to 1s.
const (
	defaultPeriodUS = 100000
	minQuotaUS      = 1000
	maxPeriodUS     = 1000000
)

// SetCPULimit caps the group at millicores thousandths of a core (500 = half
// a core), as Kubernetes does with a CPU limit: a CFS quota per period
// (v1 cpu.cfs_quota_us and cpu.cfs_period_us, v2 cpu.max). 0 removes the
// limit. Limits below 10m on the default 100ms period would need a quota
// under the kernel's 1ms minimum, so the period is lengthened instead.
func (g *Group) SetCPULimit(millicores int64) error {
	if millicores < 0 {
		return fmt.Errorf("setting cpu limit of %s: negative millicores %d", g.Path(), millicores)
	}
	d, ok := g.Dir("cpu")
	if !ok {
		return fmt.Errorf("setting cpu limit of %s: no cpu controller", g.Path())
	}
	period := int64(defaultPeriodUS)
	if g.version == V1 {
		if p, err := readInt(filepath.Join(d, "cpu.cfs_period_us")); err == nil && p > 0 {
			period = p
		}
	}
	quota, period := quotaFor(millicores, period)
	if err := g.writeCPUMax(d, quota, period); err != nil {
		return fmt.Errorf("setting cpu limit of %s to %dm: %w", g.Path(), millicores, err)
	}
	return nil
}

// quotaFor converts millicores to a CFS quota over period, both in µs;
// quota -1 means unlimited.
func quotaFor(millicores, period int64) (quota, newPeriod int64) {
	if millicores == 0 {
		return -1, period
	}
	quota = millicores * period / 1000
	if quota < minQuotaUS {
		period = minQuotaUS * 1000 / millicores
		if period > maxPeriodUS {
			period = maxPeriodUS
		}
		quota = max(millicores*period/1000, minQuotaUS)
	}
	return quota, period
}

func (g *Group) writeCPUMax(d string, quota, period int64) error {
	if g.version == V2 {
		q := "max"
		if quota > 0 {
			q = strconv.FormatInt(quota, 10)
		}
		return writeFile(filepath.Join(d, "cpu.max"), q+" "+strconv.FormatInt(period, 10))
	}
	// The kernel checks a quota against the current period (and the
	// parent's), so lift the quota before changing the period.
	qf, pf := filepath.Join(d, "cpu.cfs_quota_us"), filepath.Join(d, "cpu.cfs_period_us")
	if err := writeFile(qf, "-1"); err != nil {
		return err
	}
	if err := writeFile(pf, strconv.FormatInt(period, 10)); err != nil {
		return err
	}
	return writeFile(qf, strconv.FormatInt(quota, 10))
}

// SetMemoryLimit caps the group's memory at bytes (v1 memory.limit_in_bytes,
// v2 memory.max). 0 removes the limit. Swap is not limited.
func (g *Group) SetMemoryLimit(bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("setting memory limit of %s: negative bytes %d", g.Path(), bytes)
	}
	d, ok := g.Dir("memory")
	if !ok {
		return fmt.Errorf("setting memory limit of %s: no memory controller", g.Path())
	}
	file, value := "memory.limit_in_bytes", "-1"
	if g.version == V2 {
		file, value = "memory.max", "max"
	}
	if bytes > 0 {
		value = strconv.FormatInt(bytes, 10)
	}
	if err := writeFile(filepath.Join(d, file), value); err != nil {
		return fmt.Errorf("setting memory limit of %s to %d bytes: %w", g.Path(), bytes, err)
	}
	return nil
}

// parseCPUMax reads v2 cpu.max ("max 100000" or "5000 100000") as cores.
func parseCPUMax(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] == "max" {
		return 0
	}
	q, err := strconv.ParseFloat(f[0], 64)
	period := float64(defaultPeriodUS)
	if len(f) > 1 {
		if p, err := strconv.ParseFloat(f[1], 64); err == nil && p > 0 {
			period = p
		}
	}
	if err != nil || q <= 0 {
		return 0
	}
	return q / period
}
