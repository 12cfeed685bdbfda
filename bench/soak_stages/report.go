package main

import (
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// report prints the soak's figures: tokens, memory by minute and its
// growth over the second half, and each stage.
func report(run results.Run, be *backend, p *idp, rssc <-chan []sample, took time.Duration) {
	rss := <-rssc
	fmt.Printf("soak: %s in %s, token life %s\n", run.Plan.Load.Stages, took.Round(time.Second), p.life)
	fmt.Printf("tokens issued: %d; requests: %d accepted, %d with an expired token, %d unknown token, %d without a token; least life left on an accepted token: %s\n",
		p.issued(), be.ok, be.expired, be.unknown, be.bad, be.minLeft.Round(time.Millisecond))
	if len(rss) == 0 {
		fmt.Println("memory: no sample")
	} else {
		fmt.Print("authbench RSS (MiB) by minute:")
		next := time.Duration(0)
		var peak int64
		for _, s := range rss {
			peak = max(peak, s.rss)
			if s.at >= next {
				fmt.Printf(" %s=%.1f", s.at.Round(time.Second), mib(s.rss))
				next += time.Minute
			}
		}
		half := rss[len(rss)/2]
		last := rss[len(rss)-1]
		fmt.Printf("\nRSS peak %.1f MiB; from mid-run (%s) to the end (%s): %+.1f MiB\n", mib(peak), half.at.Round(time.Second),
			last.at.Round(time.Second), mib(last.rss-half.rss))
	}
	for _, r := range run.Results {
		for _, st := range r.Stages {
			fmt.Printf("stage %d %s: target %.1f req/s, achieved %.2f (%+.2f%%), %d/%d requests, p50 %.2f ms, p99 %.2f ms (uncorrected %.2f), status %v, errors %v\n",
				st.Stage, st.Spec, st.TargetRPS, st.AchievedRPS, (st.AchievedRPS/st.TargetRPS-1)*100, st.Requests, st.Scheduled,
				st.Latency.P50, st.Latency.P99, st.LatencyUncorrected.P99, st.Status, st.Errors)
		}
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
