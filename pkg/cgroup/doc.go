// Package cgroup creates, limits, fills, reads and removes Linux control
// groups, on both cgroup v1 (separate cpu, cpuacct and memory hierarchies)
// and cgroup v2 (one unified hierarchy).
//
// A Group is one logical cgroup. On v1 it is a directory in each of the cpu,
// cpuacct and memory hierarchies (one directory when cpu and cpuacct are
// co-mounted); on v2 it is one directory.
//
// Create nests new groups under the calling process's own cgroup in every
// hierarchy, so that whatever contains authbench (a systemd scope, a
// container, a sandbox's memory cgroup) still contains the processes it puts
// in them. When the hierarchies place the caller at different paths, as on
// hosts where only the memory hierarchy is delegated, Path records each
// hierarchy's path so that Open can find the group again from another process.
//
// Processes should be started inside a group (Group.Start, or a gate that
// joins before exec) rather than moved in afterwards: on v1 the memory a
// process already holds stays charged to its old group.
//
// # What the development machine allows
//
// The sandbox authbench is developed in (Firecracker VM, kernel 6.18) is a
// hybrid v1 host: cpu, cpuacct, cpuset, memory, pids, ... are separate v1
// hierarchies under /sys/fs/cgroup (cpu and cpuacct are NOT co-mounted), and
// /sys/fs/cgroup/unified is a cgroup2 mount with no controllers. As root,
// mkdir, cpu.cfs_quota_us, memory.limit_in_bytes and cgroup.procs are all
// writable, and a busy loop under a 50m quota is throttled in every period
// (nr_throttled = nr_periods, ~0.05 cores). /proc/self/cgroup puts the shell
// at "/" for cpu and cpuacct but at /process_api/<session id> for memory, a
// group per session of the sandbox; Create therefore nests there, and Path
// takes the two-path form. memory.move_charge_at_immigrate is rejected
// (EINVAL; deprecated in the kernel), hence Start.
package cgroup
