// Package processes is the lab's default platform: each component of
// pkg/stacks runs as a process of this host on 127.0.0.1.
//
// `lab up` writes request.json and starts a detached supervisor (`lab
// serve`, Serve) that starts every component in dependency order, checks
// each with a real request raced against its exit, writes state.json and
// scenario.yaml when all are ready, and stops everything on SIGTERM (`lab
// down`). Components run in their own process group, die with the
// supervisor (Pdeathsig), and are killed through their cgroup at stop;
// `lab limit` rewrites their cgroup limits in place. The mechanism lives
// under pkg/lab/internal: lock (the supervisor's flock and liveness),
// ports (choosing and recording ports) and proc (one component process and
// its cgroup).
package processes
