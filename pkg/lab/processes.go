package lab

// processes is the platform that runs each component as a process of this
// host: a detached supervisor (`lab serve`) starts them in dependency
// order, each in its own process group and cgroup, and records them in
// state.json under a flock. Its methods live beside the mechanism they
// drive: up.go, status.go, state.go, limits_live.go.
type processes struct{}

// Name is PlatformProcesses.
func (processes) Name() string { return PlatformProcesses }

// SetLimits rewrites the components' cgroup limits in place.
func (processes) SetLimits(dir string, limits []Limit) error { return setLimitsLive(dir, limits) }
