// Package pods executes a plan's load from inside a Kubernetes cluster:
// one Job (completionMode Indexed, parallelism N), one load generator per
// pod (the hidden `authbench agent`), everything between the coordinator
// (the CLI, outside the cluster) and the pods through the Kubernetes API.
//
//   - Executor implements runner.Executor, so the one orchestrator drives
//     it phase by phase exactly as it drives this process's engine.
//   - Split divides each phase exactly: closed loop -n and -c so that the
//     totals are the asked ones; open loop pod i takes the schedule slots
//     k ≡ i (mod N), by running at Rate/N from the common start plus i/Rate.
//   - Phases are published in a ConfigMap the pods poll with their own
//     ServiceAccount (get on that one ConfigMap): the phase, each pod's
//     share and a common start time set once every pod is ready.
//   - Each pod writes JSON lines on stdout (its log): ready, start, one
//     interval histogram per second (HdrHistogram V2, base64) and its final
//     result. The coordinator follows the logs and merges them by
//     wall-clock second, never averaging a percentile.
//   - What a token source needs reaches the pods in a Secret, deleted with
//     every other object of the run (label authbench.io/run) at the end.
package pods
