package observe

import (
	"math"
	"strings"
	"testing"
	"time"
)

// statLines is a /proc/stat of a 2-CPU host (Linux 6.1), trimmed.
const statLines = `cpu  1000 50 400 8000 100 20 30 0 0 0
cpu0 500 25 200 4000 50 10 15 0 0 0
cpu1 500 25 200 4000 50 10 15 0 0 0
intr 123 0 0
ctxt 4567
btime 1795290000
`

func TestParseHostStat(t *testing.T) {
	tests := []struct {
		name             string
		in               string
		busy, steal, tot float64
		cpus             int
		wantErr          string
	}{
		{name: "2 CPUs", in: statLines, busy: 15, tot: 96, cpus: 2},
		{name: "steal counts as busy, guest is in user", in: "cpu 100 0 100 700 0 0 0 100 50 50\ncpu0 1 1 1 1\n",
			busy: 3, steal: 1, tot: 10, cpus: 1},
		{name: "old kernel: four columns", in: "cpu 100 0 100 800\ncpu0 100 0 100 800\n", busy: 2, tot: 10, cpus: 1},
		{name: "no aggregate line", in: "cpu0 1 2 3 4\n", wantErr: "no aggregate cpu line"},
		{name: "no per-CPU line", in: "cpu 1 2 3 4\n", wantErr: "no per-CPU line"},
		{name: "short line", in: "cpu 1 2 3\ncpu0 1 2 3 4\n", wantErr: "3 columns"},
		{name: "not a number", in: "cpu 1 x 3 4\ncpu0 1 2 3 4\n", wantErr: "column 2"},
		{name: "negative", in: "cpu 1 -2 3 4\ncpu0 1 2 3 4\n", wantErr: "column 2"},
		{name: "two aggregate lines", in: "cpu 1 2 3 4\ncpu 1 2 3 4\ncpu0 1 2 3 4\n", wantErr: "two aggregate"},
		{name: "cpufreq-like names are not CPUs", in: "cpu 1 2 3 4\ncpu0 1 2 3 4\ncpux 1 2 3 4\n", busy: 0.06, tot: 0.1, cpus: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := parseHostStat([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !near(h.Busy, tt.busy, 1e-9) || !near(h.Steal, tt.steal, 1e-9) || !near(h.Total, tt.tot, 1e-9) || h.CPUs != tt.cpus {
				t.Errorf("got busy %v steal %v total %v cpus %d, want %v %v %v %d", h.Busy, h.Steal, h.Total, h.CPUs, tt.busy, tt.steal, tt.tot, tt.cpus)
			}
		})
	}
}

func TestHostWindow(t *testing.T) {
	t0 := time.Unix(1795290000, 0)
	a := HostReading{Time: t0, Busy: 10, Total: 40, CPUs: 2, Self: 1}
	tests := []struct {
		name       string
		b          HostReading
		wantNil    bool
		busy, self float64
	}{
		// 2 s on 2 CPUs: 4 CPU-seconds, 3 of them busy.
		{name: "busy share times CPUs", b: HostReading{Time: t0.Add(2 * time.Second), Busy: 13, Total: 44, CPUs: 2, Self: 2}, busy: 1.5, self: 0.5},
		{name: "same moment", b: a, wantNil: true},
		{name: "counters back", b: HostReading{Time: t0.Add(time.Second), Busy: 9, Total: 42, CPUs: 2, Self: 1}, wantNil: true},
		{name: "a CPU went offline", b: HostReading{Time: t0.Add(time.Second), Busy: 11, Total: 41, CPUs: 1, Self: 1}, wantNil: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := HostWindow(a, tt.b)
			if (h == nil) != tt.wantNil {
				t.Fatalf("HostWindow = %+v, want nil %v", h, tt.wantNil)
			}
			if h != nil && (!near(h.BusyCores, tt.busy, 1e-9) || !near(h.SelfCores, tt.self, 1e-9) || h.Share() != tt.busy/2) {
				t.Errorf("busy %v self %v share %v, want %v %v", h.BusyCores, h.SelfCores, h.Share(), tt.busy, tt.self)
			}
		})
	}
}

// TestReadHostSeesBurn: the real /proc/stat shows a goroutine burning a
// core as busy time of the host and of this process.
func TestReadHostSeesBurn(t *testing.T) {
	a, err := ReadHost("")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	x := 0.0
	for time.Now().Before(deadline) {
		x = math.Sqrt(x + 2)
	}
	b, err := ReadHost("")
	if err != nil {
		t.Fatal(err)
	}
	h := HostWindow(a, b)
	if h == nil {
		t.Fatalf("no window between %+v and %+v", a, b)
	}
	// A tick is 10 ms; the burn may be descheduled on a busy host, but it
	// runs most of half a second and the host is at least as busy as it.
	if h.SelfCores < 0.3 || h.BusyCores < h.SelfCores*0.9 || h.BusyCores > float64(h.CPUs)+1e-9 {
		t.Errorf("after burning a core for 0.5 s: %+v (x %v)", h, x)
	}
}

func FuzzParseHostStat(f *testing.F) {
	f.Add([]byte(statLines))
	f.Add([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\n"))
	f.Add([]byte("cpu 18446744073709551615 1 1 1 1 1 1 1\ncpu0 1 1 1 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHostStat(b)
		if err != nil {
			return
		}
		if h.CPUs <= 0 || h.Busy < 0 || h.Steal < 0 || h.Busy > h.Total || h.Steal > h.Busy {
			t.Fatalf("parsed %q into %+v", b, h)
		}
	})
}
