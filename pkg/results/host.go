package results

// HostCPU is what the whole host's CPUs did during a result's phase, read
// from /proc/stat at its edges: the load generator, the lab's components
// and everything else the host ran (other tenants, builds, test harnesses),
// which no component sampler sees.
type HostCPU struct {
	// CPUs is the host's online CPUs, as /proc/stat lists them.
	CPUs int `json:"cpus"`
	// Seconds is the span read, the phase's warm-up included.
	Seconds float64 `json:"seconds"`
	// BusyCores is the mean of CPUs not idle: user, nice, system, irq,
	// softirq and steal time over Seconds.
	BusyCores float64 `json:"busy_cores"`
	// StealCores is the part of BusyCores a hypervisor gave to other
	// guests (0 on bare metal).
	StealCores float64 `json:"steal_cores,omitempty"`
	// SelfCores is authbench's own mean CPU over Seconds.
	SelfCores float64 `json:"self_cores"`
}

// Share is BusyCores over CPUs, 0 when CPUs is unknown.
func (h *HostCPU) Share() float64 {
	if h == nil || h.CPUs <= 0 {
		return 0
	}
	return h.BusyCores / float64(h.CPUs)
}
