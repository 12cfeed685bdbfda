// Command load_attack drives pkg/load directly, for benchmarks that do not
// fit a Go Benchmark: 10 million requests with peak RSS (VmHWM), the
// engine's CPU cost per request next to hey and wrk, and open-loop rate
// accuracy. Without -url it starts a net/http "hello" server as a child
// process on 127.0.0.1, so that the server's memory and CPU are not counted.
//
//	go run ./bench/load_attack -n 10000000 -c 50            # RSS after 10M requests
//	go run ./bench/load_attack -url http://127.0.0.1:5678/ -z 10s -c 50
//	go run ./bench/load_attack -q 20000 -z 10s -c 100       # open-loop accuracy
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
)

func main() {
	var (
		url   = flag.String("url", "", "target URL (default: a child hello server on 127.0.0.1)")
		n     = flag.Int64("n", 1_000_000, "requests")
		c     = flag.Int("c", 50, "concurrency")
		z     = flag.Duration("z", 0, "duration (takes precedence over -n)")
		q     = flag.Float64("q", 0, "total rate in req/s (open model)")
		std   = flag.Bool("std", false, "use net/http instead of the fast HTTP/1.1 client")
		io    = flag.String("io", "", "force the HTTP/1.1 client's I/O path: io_uring, epoll or netpoll (default: the fastest allowed)")
		serve = flag.Bool("serve", false, "run as the hello server (internal)")
		js    = flag.Bool("json", false, "print the result as JSON (for bench/compare.sh)")
		prof  = flag.String("cpuprofile", "", "write a CPU profile of the attack to this file")
	)
	flag.Parse()
	if *serve {
		runServer()
		return
	}
	if *url == "" {
		u, stop, err := startServer()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
		*url = u
	}
	var opts []load.Option
	if *std {
		opts = append(opts, load.WithStdClient())
	}
	path, err := load.ParseIOPath(*io)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	opts = append(opts, load.WithIOPath(path))
	a, err := load.NewAttacker(plan.Client{Timeout: plan.DefaultTimeout}, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cpu profile:", err)
			os.Exit(1)
		}
	}
	cpu0 := cpuTime()
	m := a.Attack(ctx, load.Request{URL: *url}, load.Spec{Requests: *n, Concurrency: *c, Duration: *z, Rate: *q})
	cpu := cpuTime() - cpu0
	if *prof != "" {
		pprof.StopCPUProfile()
	}
	r := m.Result()
	if *js {
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	fmt.Printf("requests %d successes %d in %.2fs: %.0f req/s; errors %v %v\n", r.Requests, r.Successes, r.DurationS, r.ThroughputRPS, r.Errors, r.ErrorSamples)
	fmt.Printf("io path %s\n", m.IOPath())
	fmt.Printf("client cpu %.2fs = %.2f µs/request\n", cpu.Seconds(), float64(cpu.Microseconds())/float64(max(r.Requests, 1)))
	fmt.Printf("latency ms: p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f\n", r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.P999, r.Latency.Max)
	if r.AchievedRPS != nil {
		u := r.LatencyUncorrected
		fmt.Printf("open: target %.0f achieved %.1f req/s (%+.3f%%), late sends %d (%.2f%%), unsent %d\n", r.TargetRPS, *r.AchievedRPS,
			100*(*r.AchievedRPS-r.TargetRPS)/r.TargetRPS, *r.LateSends, 100*float64(*r.LateSends)/float64(max(r.Requests, 1)), m.Unsent())
		fmt.Printf("uncorrected ms: p50 %.3f p90 %.3f p99 %.3f max %.3f\n", u.P50, u.P90, u.P99, u.Max)
		if l := r.SendLag; l != nil {
			fmt.Printf("send lag ms: p50 %.3f p99 %.3f max %.3f\n", l.P50Ms, l.P99Ms, l.MaxMs)
		}
	}
	fmt.Printf("peak RSS (VmHWM) %s\n", vmHWM())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func vmHWM() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "unknown"
}

// startServer runs this program with -serve and reads the URL it prints.
func startServer() (string, func(), error) {
	cmd := exec.Command(os.Args[0], "-serve")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting server: %w", err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("starting server: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

func runServer() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/\n", l.Addr())
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello world\n")) }))
}
