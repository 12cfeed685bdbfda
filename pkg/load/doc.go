// Package load is the engine: it sends one target's requests under a closed
// or open load model and measures them.
//
// The design follows vegeta's lib (small types, functional options, failures
// as data) and fortio (per-worker histograms merged exactly, never averaged
// percentiles):
//
//   - An Attacker holds what is shared by every attack: TLS settings, the
//     client timeout and idle connections.
//   - Attack runs Spec.Concurrency workers. In the closed model they share an
//     atomic request counter, so -n 1000 sends exactly 1000 requests. In the
//     open model each worker takes the next sequence number k, computes its
//     intended send time start+k/Rate and waits for it, so the schedule never
//     drifts and no pacer goroutine is needed; when every worker is busy the
//     next request is already late and that wait is part of its corrected
//     latency.
//   - Each worker records into its own small (packed) interval histogram under
//     its own, practically uncontended, mutex. Once a second a collector
//     swaps them out, merges them into one dense interval histogram (the
//     timeline and the .hlog interval) and that into the run's total.
//
// Definitions, as reported by Metrics.Result:
//
//   - A request is counted once it completes, answered or failed; in-flight
//     requests at cancellation finish and count. Nothing is capped.
//   - Latency covers answered requests (any HTTP status), from the send to
//     the end of the body. On the event-loop paths (IOUring, IOEpoll) the
//     end is the kernel's receive timestamp of the body's last bytes, so
//     that the time an answer waits for the loop is not the target's.
//     Failures (refused, reset, timeout, tls, dns, other, auth-token) are
//     counted by class instead: a refused connection's microseconds would
//     flatter the percentiles.
//   - Open model: corrected latency runs from the intended send time,
//     uncorrected from the actual send. A late send is one more than 1 ms
//     after its intended time. The send lag (actual minus intended send
//     time: p50, p99, max) is the generator's own noise floor. The waits
//     before sends never hold a thread (see fineTimer), so that goroutines
//     reading responses are never kept from running. The achieved rate is (sent-1) over the time
//     from the start to the last send. A timed open attack stops sending at
//     its end; requests due but never sent because every worker was busy
//     are Metrics.Unsent.
//   - Throughput counts every completed request, answered or failed, per
//     second (hey's Requests/sec); goodput counts successes (HTTP < 400).
//   - The token source is asked before each request, outside the measured
//     latency (but inside the corrected one when it delays the send).
//
// Keep-alive connections: one that has sat idle (over a millisecond: never
// on the closed loop's hot path) is checked before reuse with a
// non-blocking peek of its socket and redialled when the server closed or
// reset it or sent bytes nobody asked for (HAProxy's 408 as it closes an idle
// connection). A 408 that ends a reused connection is not counted as the
// answer to the request just written, and a request whose reused connection
// closes before any byte of its answer arrived is resent once on a new one,
// whatever its method: the server never processed it, so it is not a reset.
// URL credentials are sent as Basic auth, the method is upper-cased and a
// "Connection: close" header means a new connection per request.
//
// HTTP/1.1 requests go through a minimal client of this package (one
// connection per worker, the request bytes built once, the response parsed in
// place and its body discarded), because net/http's transport costs several
// goroutine hand-offs and dozens of allocations per request and would make
// the load generator, not the target, the bottleneck. HTTP/2 (and the
// WithStdClient option) use net/http. Plain HTTP/1.1 on Linux runs that
// client's state machine on event loops instead of goroutines: over
// io_uring (batched submissions and waits, evuring_linux.go) or, where it is
// refused, over epoll (evloop_linux.go); IOPath names the paths and
// docs/io-paths.md compares them.
package load
