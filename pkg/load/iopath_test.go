package load

import (
	"context"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestIOPathsExactCounts forces each I/O path on a closed and an open
// attack and checks that every request is counted exactly once, by the
// engine and by the server, and that the result names the path that ran.
func TestIOPathsExactCounts(t *testing.T) {
	for _, path := range paths {
		for _, tc := range []struct {
			name string
			spec Spec
			want int64
		}{
			{"closed", Spec{Requests: 1000, Concurrency: 7}, 1000},
			{"open", Spec{Rate: 2000, Requests: 300, Concurrency: 20}, 300},
			{"keep-alive off", Spec{Requests: 50, Concurrency: 3}, 50},
		} {
			t.Run(string(path)+"/"+tc.name, func(t *testing.T) {
				s, served := countingServer(t)
				a := attacker(t, plan.Client{DisableKeepAlive: tc.name == "keep-alive off"}, WithIOPath(path))
				m, r := runAttack(t, a, Request{URL: s.URL}, tc.spec)
				if r.Requests != tc.want || r.Successes != tc.want || served.Load() != tc.want {
					t.Errorf("requests %d successes %d, server saw %d, want %d", r.Requests, r.Successes, served.Load(), tc.want)
				}
				if m.IOPath() != path || r.IOPath != string(path) {
					t.Errorf("ran on %q (result %q), want %q", m.IOPath(), r.IOPath, path)
				}
				if n, errs, _ := sumSeries(m.Series()); n != tc.want || errs != 0 {
					t.Errorf("timeline counts %d requests %d errors, want %d and 0", n, errs, tc.want)
				}
				if ph := r.Phases; ph.Write.Count != tc.want || ph.Wait.Count != tc.want || ph.Read.Count != tc.want {
					t.Errorf("phases counted write %d wait %d read %d, want %d each", ph.Write.Count, ph.Wait.Count, ph.Read.Count, tc.want)
				}
			})
		}
	}
}

// TestIOPathFallback checks which path runs when the forced one cannot:
// TLS keeps Go's netpoller, HTTP/2 and WithStdClient net/http.
func TestIOPathFallback(t *testing.T) {
	ts := tlsServer(t)
	plain, _ := countingServer(t)
	for _, tc := range []struct {
		name   string
		client plan.Client
		url    string
		opts   []Option
		want   IOPath
	}{
		{"auto", plan.Client{}, plain.URL, nil, paths[len(paths)-1]},
		{"tls io_uring", plan.Client{Insecure: true}, ts.URL, []Option{WithIOPath(IOUring)}, IONetpoll},
		{"tls", plan.Client{Insecure: true}, ts.URL, []Option{WithIOPath(IOEpoll)}, IONetpoll},
		{"std", plan.Client{}, plain.URL, []Option{WithIOPath(IOEpoll), WithStdClient()}, IONetHTTP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := attacker(t, tc.client, tc.opts...)
			m := a.Attack(context.Background(), Request{URL: tc.url}, Spec{Requests: 3, Concurrency: 1})
			if r := m.Result(); r.Successes != 3 || m.IOPath() != tc.want {
				t.Errorf("successes %d (%v) on %q, want 3 on %q", r.Successes, r.ErrorSamples, m.IOPath(), tc.want)
			}
		})
	}
}

func TestParseIOPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want IOPath
		ok   bool
	}{{"", IOAuto, true}, {"auto", IOAuto, true}, {"epoll", IOEpoll, true}, {"netpoll", IONetpoll, true}, {"io_uring", IOUring, true}, {"uring", IOAuto, false}} {
		got, err := ParseIOPath(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseIOPath(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	t.Setenv(IOPathEnv, "bogus")
	if _, err := IOPathFromEnv(); err == nil {
		t.Errorf("IOPathFromEnv accepted %s=bogus", IOPathEnv)
	}
}

// TestIOPathsZeroAllocs checks that no path allocates per request, the
// engine's promise for long runs (the benchmark reports the same figure).
func TestIOPathsZeroAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmark-based")
	}
	for _, path := range paths {
		res := testing.Benchmark(func(b *testing.B) { benchAttack(b, Spec{Concurrency: 8}, WithIOPath(path)) })
		if res.N < 1000 || res.AllocsPerOp() != 0 {
			t.Errorf("%s: %d allocs per request over %d requests (%s)", path, res.AllocsPerOp(), res.N, res.T.Round(time.Millisecond))
		}
	}
}
