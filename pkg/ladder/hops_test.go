package ladder

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

func TestParseHopLine(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		ok     bool
		gw     string
		at     int64 // unix ms
		status int
		ms     map[string]float64
	}{
		{
			name: "envoy with the ext_authz call",
			line: "authbench-ladder gw=envoy us=1716200000123456 status=200 rt_us=4000 urt_us=2000 authz_us=1250 details=via_upstream",
			ok:   true, gw: "envoy", at: 1716200000123, status: 200,
			ms: map[string]float64{"rt": 4, "urt": 2, "authz": 1.25},
		},
		{
			name: "envoy denied before the upstream: no upstream time",
			line: "authbench-ladder gw=envoy us=1716200001000000 status=403 rt_us=1477 urt_us=- authz_us=965 details=ext_authz_error",
			ok:   true, gw: "envoy", at: 1716200001000, status: 403,
			ms: map[string]float64{"rt": 1.477, "authz": 0.965},
		},
		{
			name: "envoy without the ext_authz filter state",
			line: "authbench-ladder gw=envoy us=1716200001000000 status=200 rt_us=900 urt_us=700 authz_us=- details=via_upstream",
			ok:   true, gw: "envoy", at: 1716200001000, status: 200,
			ms: map[string]float64{"rt": 0.9, "urt": 0.7},
		},
		{
			name: "after a prefix (stderr of the supervisor)",
			line: "2024/05/20 10:00:00 [info] authbench-ladder gw=haproxy ms=1716200000999 status=200 Ta=3 Tr=2 Tw=0 Tc=0",
			ok:   true, gw: "haproxy", at: 1716200000999, status: 200,
			ms: map[string]float64{"Ta": 3, "Tr": 2, "Tw": 0, "Tc": 0},
		},
		{
			name: "haproxy aborted: -1 timers absent",
			line: "authbench-ladder gw=haproxy ms=1716200000999 status=503 Ta=5 Tr=-1 Tw=0 Tc=-1",
			ok:   true, gw: "haproxy", at: 1716200000999, status: 503,
			ms: map[string]float64{"Ta": 5, "Tw": 0},
		},
		{name: "other line", line: `127.0.0.1 - - [20/May/2024] "GET /echo HTTP/1.1" 200`},
		{name: "unknown gateway", line: "authbench-ladder gw=nginx msec=1.0 status=200"},
		{name: "bad time", line: "authbench-ladder gw=envoy us=x status=200 rt_us=1"},
		{name: "envoy's time in milliseconds", line: "authbench-ladder gw=envoy ms=1716200001000 status=200 rt_us=1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := ParseHopLine(tc.line)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if r.Gateway != tc.gw || r.At.UnixMilli() != tc.at || r.Status != tc.status {
				t.Errorf("got %s at %d status %d, want %s at %d status %d", r.Gateway, r.At.UnixMilli(), r.Status, tc.gw, tc.at, tc.status)
			}
			if len(r.Ms) != len(tc.ms) {
				t.Errorf("timers %v, want %v", r.Ms, tc.ms)
			}
			for k, want := range tc.ms {
				if got, ok := r.Ms[k]; !ok || math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
				}
			}
		})
	}
}

// TestHopsBesideLadder writes an Envoy log with lines inside and outside
// the gateway's turns and checks what is read, how it is aggregated and
// which ladder figure each timing is set beside.
func TestHopsBesideLadder(t *testing.T) {
	base := time.UnixMilli(1716200000000)
	gwTurn := window{base, base.Add(time.Second), 101}
	e2eTurn := window{base.Add(2 * time.Second), base.Add(3 * time.Second), 100}
	var lines []string
	line := func(at time.Time, status int, rt, urt, authz float64) {
		lines = append(lines, fmt.Sprintf("authbench-ladder gw=envoy us=%d status=%d rt_us=%.0f urt_us=%.0f authz_us=%.0f details=via_upstream",
			at.UnixMicro(), status, rt*1000, urt*1000, authz*1000))
	}
	for i := range 100 { // in the gateway's turn: authz 1 ms (2 ms for the slowest 10)
		authz := 1.0
		if i >= 90 {
			authz = 2
		}
		line(base.Add(time.Duration(i)*5*time.Millisecond), 200, 5, 3, authz)
	}
	for i := range 100 { // in the end-to-end turn, same host
		line(e2eTurn.from.Add(time.Duration(i)*5*time.Millisecond), 200, 5, 3, 1)
	}
	line(base.Add(1500*time.Millisecond), 200, 90, 1, 80) // between turns: not ours
	line(base.Add(100*time.Millisecond), 403, 1, 0, 1)    // denied: not counted
	lines = append(lines, "2024/05/20 [warn] something else")
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &ladderRun{o: &Options{Gateway: &GatewayLog{Path: path, Gateway: "envoy", FlushWait: time.Millisecond}}, slots: []*slot{
		{layer: "echo", url: "http://127.0.0.1:1/echo"},
		{layer: "auth", url: "http://127.0.0.1:2/echo", extAuthz: true},
		{layer: "envoy", url: "https://127.0.0.1:3/echo", windows: []window{gwTurn}},
		{layer: results.EndToEnd, url: "https://127.0.0.1:3/echo", windows: []window{e2eTurn}},
	}}
	lad := &results.Ladder{Layers: []results.LadderLayer{
		{Name: "envoy", AddedMs: results.LadderQuantiles{P50: 1.5, P95: 2, P99: 3}},
		{Name: "auth", AddedMs: results.LadderQuantiles{P50: 0.9, P95: 1.2, P99: 1.4}},
	}}
	l.hops(context.Background(), lad)
	if len(lad.Hops) != 2 {
		t.Fatalf("hops %+v, want the ext_authz subrequest and the gateway's own time", lad.Hops)
	}
	authz, own := lad.Hops[0], lad.Hops[1]
	if authz.Layer != "auth" || authz.Requests != 200 || authz.Ms != (results.LadderQuantiles{P50: 1, P95: 1, P99: 2}) {
		t.Errorf("ext_authz hop %+v, want 200 requests beside auth at 1/1/2 ms (10 of 200 at 2 ms)", authz)
	}
	if authz.LadderMs.P95 != 1.2 || authz.LadderFigure != "added" {
		t.Errorf("ext_authz hop beside %+v (%s), want auth's added figure", authz.LadderMs, authz.LadderFigure)
	}
	if authz.ResolutionMs != 0.001 {
		t.Errorf("ext_authz hop resolution %v ms, want Envoy's microsecond", authz.ResolutionMs)
	}
	if own.Layer != "envoy" || math.Abs(own.Ms.P50-1) > 1e-9 || own.LadderMs.P50 != 1.5 {
		t.Errorf("gateway's own time %+v, want 1 ms (5 - 3 - 1) beside envoy's 1.5 ms", own)
	}
}

func TestHopsMissing(t *testing.T) {
	tests := []struct {
		name, path, missing, want string
	}{
		{"declared missing", "", "the gateway does not log the auth subrequest", "does not log the auth subrequest"},
		{"no file", "/nonexistent/access.log", "", "reading gateway log"},
		{"no ladder line", "empty", "", `no "authbench-ladder" line`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "empty" {
				path = filepath.Join(t.TempDir(), "access.log")
				if err := os.WriteFile(path, []byte("other\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l := &ladderRun{o: &Options{Gateway: &GatewayLog{Path: path, Gateway: "envoy", Missing: tc.missing, FlushWait: time.Millisecond}},
				slots: []*slot{{layer: "echo"}, {layer: "auth", extAuthz: true}, {layer: "envoy"}, {layer: results.EndToEnd}}}
			lad := &results.Ladder{}
			l.hops(context.Background(), lad)
			if len(lad.Hops) != 1 || !strings.Contains(lad.Hops[0].Missing, tc.want) || lad.Hops[0].Layer != "auth" {
				t.Errorf("hops %+v, want one missing ext_authz hop saying %q", lad.Hops, tc.want)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	if got, want := fmt.Sprint(Schedule(4, 2)), fmt.Sprint([]Turn{{1, 0}, {1, 1}, {1, 3}, {1, 2}, {2, 1}, {2, 2}, {2, 0}, {2, 3}}); got != want {
		t.Errorf("Schedule(4, 2) = %v, want %v", got, want)
	}
	if n := len(Schedule(4, 0)); n != 0 {
		t.Errorf("Schedule(4, 0) has %d turns, want 0", n)
	}
	for n := 1; n <= 7; n++ {
		t.Run(fmt.Sprintf("%d slots", n), func(t *testing.T) {
			rounds := n
			if n%2 == 1 {
				rounds = 2 * n
			}
			turns := Schedule(n, rounds)
			if len(turns) != n*rounds {
				t.Fatalf("%d turns, want %d", len(turns), n*rounds)
			}
			follows := map[[2]int]int{}
			for r := range rounds {
				row := turns[r*n : (r+1)*n]
				seen := map[int]bool{}
				for i, tu := range row {
					if tu.Round != r+1 || tu.Slot < 0 || tu.Slot >= n || seen[tu.Slot] {
						t.Fatalf("round %d: %v: want every slot once, in round %d", r+1, row, r+1)
					}
					seen[tu.Slot] = true
					if i > 0 {
						follows[[2]int{row[i-1].Slot, tu.Slot}]++
					}
				}
			}
			// A Williams design: every slot right after every other
			// equally often, so a turn's carry-over falls on all alike.
			want := rounds * (n - 1) / max(n*(n-1), 1)
			for a := range n {
				for b := range n {
					if a != b && follows[[2]int{a, b}] != want {
						t.Errorf("slot %d follows slot %d %d times in %d rounds, want %d", b, a, follows[[2]int{a, b}], rounds, want)
					}
				}
			}
		})
	}
}

func TestDriftNotes(t *testing.T) {
	slots := []*slot{{layer: "auth", name: "x/auth"}, {layer: "echo", name: "x/echo"}}
	res := func(target string, p50s ...float64) []results.Result {
		var out []results.Result
		for i, v := range p50s {
			out = append(out, results.Result{Target: target, Iteration: i + 1, Requests: 100, Latency: results.Latency{P50: v}})
		}
		return out
	}
	tests := []struct {
		name string
		res  []results.Result
		want string // "" for no note
	}{
		{"steady", res("x/auth", 5.6, 5.7, 5.5, 5.6), ""},
		{"stalled round", res("x/auth", 42.3, 5.6, 5.6, 5.7), "auth's median latency was 5.65 ms over its rounds but round 1: 42.3 ms"},
		{"sub-millisecond jitter is not drift", res("x/echo", 0.25, 0.6, 0.26), ""},
		{"two rounds are too few", res("x/auth", 42, 5.6), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			notes := driftNotes(tc.res, slots)
			got := strings.Join(notes, "\n")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("notes %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHopNote(t *testing.T) {
	hop := func(seen, own results.LadderQuantiles) results.HopTiming {
		return results.HopTiming{Name: hopExtAuthz, Layer: "oauth2-proxy", Ms: seen, LadderMs: own, LadderFigure: "added", ResolutionMs: 1}
	}
	q := func(a, b, c float64) results.LadderQuantiles { return results.LadderQuantiles{P50: a, P95: b, P99: c} }
	tests := []struct {
		name string
		h    results.HopTiming
		want string
	}{
		{"agrees within the log's resolution", hop(q(1, 2, 3), q(0.7, 1.4, 2.2)), ""},
		{"slower through the gateway", hop(q(2, 250, 400), q(1.5, 60, 98)), "at P95 250 ms, its own rung adds 60.0 ms"},
		{"missing", results.HopTiming{Name: hopExtAuthz, Missing: "no log"}, ""},
		{"not the ext_authz hop", results.HopTiming{Name: "gateway's own time", Ms: q(10, 20, 30), LadderFigure: "added"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := hopNote(tc.h)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("note %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzParseHopLine: a gateway's log is untrusted text; any line parses or
// is skipped, never panics, and a parsed line's timers are not negative.
func FuzzParseHopLine(f *testing.F) {
	for _, s := range []string{
		"authbench-ladder gw=envoy us=1716200000123456 status=200 rt_us=4000 urt_us=2000 authz_us=1250 details=via_upstream",
		"authbench-ladder gw=haproxy ms=1716200000999 status=503 Ta=5 Tr=-1 Tw=0 Tc=-1",
		"authbench-ladder gw=envoy us=x", "authbench-ladder ", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, ok := ParseHopLine(line)
		if !ok {
			return
		}
		for k, v := range r.Ms {
			if v < 0 {
				t.Errorf("%q: timer %s = %v", line, k, v)
			}
		}
	})
}
