package load

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// cannedServer is a minimal HTTP/1.1 server that allocates nothing per
// request, so that allocs/op measure the client alone.
func cannedServer(b testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReaderSize(c, 4096)
				for {
					for {
						line, err := r.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(bytes.TrimSpace(line)) == 0 {
							break
						}
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/"
}

func benchAttack(b *testing.B, s Spec, opts ...Option) results.Result {
	u := cannedServer(b)
	a, err := NewAttacker(plan.Client{Timeout: plan.Duration(plan.DefaultTimeout)}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	r := Request{URL: u, Header: map[string][]string{"Accept": {"*/*"}}, Token: staticToken(strings.Repeat("t", 800))}
	a.Attack(context.Background(), r, Spec{Requests: int64(s.Concurrency), Concurrency: s.Concurrency}) // connect
	b.ReportAllocs()
	b.ResetTimer()
	s.Requests = int64(b.N)
	m := a.Attack(context.Background(), r, s)
	b.StopTimer()
	res := m.Result()
	if res.Successes != int64(b.N) {
		b.Fatalf("successes %d of %d: %v", res.Successes, b.N, res.ErrorSamples)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	return res
}

// BenchmarkAttackClosed measures the engine's cost per request (one op is
// one request) against a server that costs almost nothing.
func BenchmarkAttackClosed(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchAttack(b, Spec{Concurrency: 16}) })
	b.Run("std", func(b *testing.B) { benchAttack(b, Spec{Concurrency: 16}, WithStdClient()) })
}

// BenchmarkAttackOpen measures how well the open model holds its rate. Run
// it long enough for the rate to matter, e.g. -benchtime 10s. It reports the
// achieved rate as a percentage of the target (goal: within 1%), the share
// of late sends, and the send lag the client adds to the corrected median
// (corrected minus uncorrected p50).
func BenchmarkAttackOpen(b *testing.B) {
	for _, rate := range []float64{1000, 10000, 20000} {
		b.Run(fmt.Sprintf("%gk", rate/1000), func(b *testing.B) {
			r := benchAttack(b, Spec{Concurrency: 64, Rate: rate})
			b.ReportMetric(100**r.AchievedRPS/rate, "%rate")
			b.ReportMetric(100*float64(*r.LateSends)/float64(r.Requests), "%late")
			b.ReportMetric(1000*(r.Latency.P50-r.LatencyUncorrected.P50), "µs-lag-p50")
		})
	}
}

func BenchmarkReadResponse(b *testing.B) {
	raw := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: Mon, 01 Jan 2026 00:00:00 GMT\r\nX-App-Name: http-echo\r\nX-App-Version: 1.0.0\r\nContent-Length: 12\r\n\r\nhello world\n")
	rd := bytes.NewReader(raw)
	br := bufio.NewReaderSize(rd, readBufSize)
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(raw)
		br.Reset(rd)
		if _, _, err := readResponse(br, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	at := &attack{open: true, ctx: context.Background()}
	w := newWorker(at)
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		i++
		w.record(0, 100, 100+(i%5000)*1000, 200, nil)
	}
}
