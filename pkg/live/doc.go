// Package live is the terminal view of a run while it goes (--live): the
// achieved rate against the target, P50/P99 of the last seconds and so far
// (corrected and uncorrected in the open loop), errors by class, the
// sampled components' CPU against their limits and throttled share, and
// each pod's share. It watches the runner (runner.Watcher) and redraws a
// block of lines in place once a second; it measures nothing itself and
// the runner does not know it.
package live
