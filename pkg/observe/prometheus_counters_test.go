package observe

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// fakeProm answers the Prometheus API with canned bodies chosen by the
// metric a query names: raw for instant queries (/api/v1/query), grid for
// range queries; an empty matrix otherwise. A body whose status is
// "error" is sent with HTTP 422, as Prometheus does.
type fakeProm struct {
	raw, grid map[string]string
	mu        sync.Mutex
	asked     []string // "query <query> time=<t>" or "query_range <query>"
}

func (f *fakeProm) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		bodies, what := f.grid, "query_range "+q
		if strings.HasSuffix(r.URL.Path, "/query") {
			bodies, what = f.raw, "query "+q+" time="+r.Form.Get("time")
		}
		f.mu.Lock()
		f.asked = append(f.asked, what)
		f.mu.Unlock()
		body := emptyMatrix
		for name, b := range bodies {
			if strings.Contains(q, name) {
				body = b
			}
		}
		if strings.Contains(body, `"status":"error"`) {
			w.WriteHeader(http.StatusUnprocessableEntity)
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const emptyMatrix = `{"status":"success","data":{"resultType":"matrix","result":[]}}`

// recorded reads a response recorded from Prometheus 2.42 during
// TestPrometheusShortWindowAgrees (1 s scrapes of the burn helper).
func recorded(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "prometheus", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// matrix builds a matrix body: each series is its labels (JSON members),
// then (unix seconds, value) pairs.
func matrix(series ...[]any) string {
	var parts []string
	for _, s := range series {
		var vals []string
		for i := 1; i+1 < len(s); i += 2 {
			vals = append(vals, fmt.Sprintf(`[%v,"%v"]`, s[i], s[i+1]))
		}
		parts = append(parts, fmt.Sprintf(`{"metric":{%s},"values":[%s]}`, s[0], strings.Join(vals, ",")))
	}
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(parts, ",") + `]}}`
}

// The recorded run: idle from 185.354, the helper burning about 0.38 cores
// over exactly the window [189.355, 194.355] (scrapes at .279), which the
// local sampler measured at 0.38197 cores.
var (
	burnIdleStart = time.UnixMilli(1795295185354)
	burnIdleEnd   = time.UnixMilli(1795295189355)
	burnEnd       = time.UnixMilli(1795295194355)
	burnLocal     = 0.38197
)

func TestPrometheusCounterWindows(t *testing.T) {
	const t0 = 1795290000 // a whole second; windows below are relative to it
	cadvisor := `"container":"c","namespace":"ns","pod":"p-1"`
	tests := []struct {
		name      string
		profile   []plan.Metric
		rangeOnly bool
		raw, grid map[string]string
		// window, in seconds after t0 unless the recorded run's
		idleStart, start, end float64
		wantCPU, tol          float64
		wantIdle              float64
		wantErr               string
		// wantRaw says whether the raw counter was asked for
		wantRaw bool
	}{
		{
			name: "recorded: raw counter, window that is the load", profile: ProcessProfile(),
			raw:  map[string]string{"process_cpu_seconds_total": recorded(t, "burn_cpu_raw.json")},
			grid: map[string]string{"process_resident_memory_bytes": recorded(t, "burn_memory.json")},
			// 1.91 CPU-s between the scrapes bracketing the window, none of
			// it outside: the intervals beyond both edges are idle.
			wantCPU: 1.91 / 5.0, tol: 1e-6, wantRaw: true,
		},
		{
			// The range path reads the same run 16% low: the last step at or
			// before the end holds the scrape 1.4 s before it.
			name: "recorded: range queries only", profile: ProcessProfile(), rangeOnly: true,
			grid: map[string]string{"process_cpu_seconds_total": recorded(t, "burn_cpu_range.json"),
				"process_resident_memory_bytes": recorded(t, "burn_memory.json")},
			wantCPU: 0.3208, tol: 1e-3,
		},
		{
			name: "two pods scraped at different times are summed", profile: DefaultProfile(),
			raw: map[string]string{"container_cpu_usage_seconds_total": matrix(
				[]any{cadvisor, t0, 10, t0 + 1, 10.5, t0 + 2, 11, t0 + 3, 11.5, t0 + 4, 12, t0 + 5, 12.5, t0 + 6, 13},
				[]any{`"container":"c","namespace":"ns","pod":"p-2"`, t0 + 0.5, 1, t0 + 1.5, 1.25, t0 + 2.5, 1.5, t0 + 3.5, 1.75,
					t0 + 4.5, 2, t0 + 5.5, 2.25})},
			idleStart: 1, start: 1.2, end: 4.7, wantCPU: 0.75, tol: 1e-9, wantIdle: 0.75, wantRaw: true,
		},
		{
			// 0.5 cores throughout; the process restarts between 3 and 4 s
			// and has used 0.3 CPU-s by its first scrape.
			name: "counter reset counts the new process's CPU", profile: ProcessProfile(),
			raw: map[string]string{"process_cpu_seconds_total": matrix(
				[]any{`"job":"c"`, t0, 10, t0 + 1, 10.5, t0 + 2, 11, t0 + 3, 11.5, t0 + 4, 0.3, t0 + 5, 0.8, t0 + 6, 1.3})},
			idleStart: 0.5, start: 0.5, end: 5.5, wantCPU: (0.5*2.5 + 0.3 + 0.5*1.5) / 5, tol: 1e-9, wantRaw: true,
		},
		{
			name: "no raw samples: the rate is integrated", profile: DefaultProfile(),
			grid: map[string]string{"container_cpu_usage_seconds_total": matrix(
				[]any{"", t0, 0.5, t0 + 1, 0.5, t0 + 2, 0.5, t0 + 3, 0.5})},
			start: 0, end: 3, wantCPU: 0.5, tol: 1e-9, wantRaw: true,
		},
		{
			name: "raw query refused: the rate is integrated", profile: DefaultProfile(),
			raw: map[string]string{"container_cpu_usage_seconds_total": `{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory"}`},
			grid: map[string]string{"container_cpu_usage_seconds_total": matrix(
				[]any{"", t0, 0.25, t0 + 1, 0.25, t0 + 2, 0.25})},
			start: 0, end: 2, wantCPU: 0.25, tol: 1e-9, wantRaw: true,
		},
		{
			name: "both refused: both errors reported", profile: ProcessProfile(),
			raw:  map[string]string{"process_cpu_seconds_total": `{"status":"error","errorType":"execution","error":"too many samples"}`},
			grid: map[string]string{"process_cpu_seconds_total": `{"status":"error","errorType":"bad_data","error":"no"}`},
			end:  2, wantErr: "too many samples", wantRaw: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeProm{raw: tt.raw, grid: tt.grid}
			s, err := NewPrometheus(PromOptions{URL: f.start(t), Profile: tt.profile, RangeOnly: tt.rangeOnly},
				[]PromComponent{{Name: "c", Namespace: "ns", Pod: "p-.*", Container: "c"}})
			if err != nil {
				t.Fatal(err)
			}
			sec := func(v float64) time.Time { return time.UnixMilli(int64(math.Round((t0 + v) * 1000))) }
			w := window{idleStart: sec(tt.idleStart), idleEnd: sec(tt.start), start: sec(tt.start), end: sec(tt.end)}
			if strings.HasPrefix(tt.name, "recorded") {
				w = window{idleStart: burnIdleStart, idleEnd: burnIdleEnd, start: burnIdleEnd, end: burnEnd}
			}
			pts, err := s.QueryRange(context.Background(), w.idleStart, w.end)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "bad_data") {
					t.Fatalf("err = %v, want both the raw (%q) and the range query's", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			u := summarize(s.Components()[0], SourcePrometheus, pts[0], w)
			if !near(u.CPUMean, tt.wantCPU, tt.tol) {
				t.Errorf("mean CPU = %.6f, want %.6f", u.CPUMean, tt.wantCPU)
			}
			if !near(u.CPUIdle, tt.wantIdle, 1e-9) {
				t.Errorf("idle CPU = %.6f, want %.6f", u.CPUIdle, tt.wantIdle)
			}
			if asked := strings.Join(f.asked, "\n"); strings.Contains(asked, "query ") != tt.wantRaw {
				t.Errorf("queries asked:\n%s\nwant raw samples asked for: %v", asked, tt.wantRaw)
			}
		})
	}
}

func TestPrometheusRecordedAgreesWithLocal(t *testing.T) {
	f := &fakeProm{raw: map[string]string{"process_cpu_seconds_total": recorded(t, "burn_cpu_raw.json")},
		grid: map[string]string{"process_resident_memory_bytes": recorded(t, "burn_memory.json")}}
	s, err := NewPrometheus(PromOptions{URL: f.start(t), Profile: ProcessProfile(), Margin: time.Minute},
		[]PromComponent{{Name: "burner"}})
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return burnEnd.Add(2 * time.Second) } // when it was recorded
	pts, err := s.QueryRange(context.Background(), burnIdleStart, burnEnd)
	if err != nil {
		t.Fatal(err)
	}
	u := summarize(s.Components()[0], SourcePrometheus, pts[0],
		window{idleStart: burnIdleStart, idleEnd: burnIdleEnd, start: burnIdleEnd, end: burnEnd})
	if d := math.Abs(u.CPUMean-burnLocal) / burnLocal; d > 0.01 {
		t.Errorf("mean CPU %.4f vs local %.4f: %.1f%% apart", u.CPUMean, burnLocal, d*100)
	}
	if u.MemPeak != 10276864 || len(u.Samples) != 6 {
		t.Errorf("memory peak %v, %d samples; want 10276864 and one sample per scrape", u.MemPeak, len(u.Samples))
	}
	// The raw read asks for the selector from a minute before the window
	// up to the query's time: now, 2 s after the end (the minute after it
	// has not come yet).
	at := burnEnd.Add(2 * time.Second)
	want := fmt.Sprintf(`query process_cpu_seconds_total{job="burner"}[%dms] time=%s`,
		at.Sub(burnIdleStart.Add(-time.Minute)).Milliseconds(), formatTime(at))
	if f.asked[0] != want {
		t.Errorf("raw query = %s\nwant %s", f.asked[0], want)
	}
}

func TestCounterSelector(t *testing.T) {
	tests := []struct {
		metric, query, wantSel, wantFills string
	}{
		{MetricCPUSeconds, `sum(process_cpu_seconds_total{job="x"})`, `process_cpu_seconds_total{job="x"}`, MetricCPUSeconds},
		{MetricCPU, `sum(rate(container_cpu_usage_seconds_total{namespace="a",pod=~"p-.*",container="c"}[1m]))`,
			`container_cpu_usage_seconds_total{namespace="a",pod=~"p-.*",container="c"}`, MetricCPUSeconds},
		{MetricCPU, ` sum ( irate ( cpu_total [30s] ) ) `, `cpu_total `, MetricCPUSeconds},
		{MetricCFSThrottledPeriods, `sum(container_cpu_cfs_throttled_periods_total{pod=~"a}b"})`,
			`container_cpu_cfs_throttled_periods_total{pod=~"a}b"}`, MetricCFSThrottledPeriods},
		{MetricCPUSeconds, `sum(process_cpu_seconds_total)`, `process_cpu_seconds_total`, MetricCPUSeconds},
		{MetricMemory, `sum(process_resident_memory_bytes{job="x"})`, "", ""},
		{MetricCPU, `sum by (pod) (rate(cpu_total[1m]))`, "", ""},
		{MetricCPU, `sum(rate(cpu_total[1m])) * 2`, "", ""},
		{MetricCPUSeconds, `sum(a) + sum(b)`, "", ""},
		{MetricCPULimit, `sum(container_spec_cpu_quota) / sum(container_spec_cpu_period)`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			sel, fills := counterSelector(tt.metric, tt.query)
			if sel != tt.wantSel || fills != tt.wantFills {
				t.Errorf("got %q, %q; want %q, %q", sel, fills, tt.wantSel, tt.wantFills)
			}
		})
	}
}

// TestPrometheusWaitsForLateCounter: a counter whose newest sample is
// short of the window's end is read again until one past it lands (as
// cAdvisor's do on a busy host), and given up on after lateSettles.
func TestPrometheusWaitsForLateCounter(t *testing.T) {
	tests := []struct {
		name     string
		settle   time.Duration
		lateFrom int32 // the read from which the late sample is there; 0: never
		idleEnd  bool  // the counter is flat over its last interval
		wantCPU  float64
		// reads of the raw counter
		minReads, maxReads int32
	}{
		{name: "late sample lands", settle: time.Second, lateFrom: 2, wantCPU: 0.625, minReads: 2, maxReads: 5},
		{name: "never lands: given up", settle: 200 * time.Millisecond, wantCPU: 0.5, minReads: 3, maxReads: 100},
		{name: "flat into the end: not waited for", settle: time.Second, lateFrom: 2, idleEnd: true, wantCPU: 0.75 / 3, minReads: 1, maxReads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end := time.Now()
			start := end.Add(-4 * time.Second)
			at := func(d float64) float64 { return float64(start.UnixMilli())/1000 + d }
			// 0.5 cores from start; the last early sample is 1 s before the
			// end. The late one shows 1 core since: 2.5 CPU-s in the window,
			// where the early ones extrapolated give 2.
			early := []any{`"job":"c"`, at(-1), 0, at(0), 0, at(1.5), 0.75, at(3), 1.5}
			if tt.idleEnd {
				early[len(early)-1] = 0.75
			}
			late := append(slices.Clone(early), at(4.5), 3.0)
			var reads atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.ParseForm()
				body := emptyMatrix
				if strings.HasSuffix(r.URL.Path, "/query") && strings.Contains(r.Form.Get("query"), "process_cpu_seconds_total") {
					body = matrix(early)
					if n := reads.Add(1); tt.lateFrom > 0 && n >= tt.lateFrom {
						body = matrix(late)
					}
				}
				w.Write([]byte(body))
			}))
			t.Cleanup(srv.Close)
			s, err := NewPrometheus(PromOptions{URL: srv.URL, Profile: ProcessProfile(), Settle: tt.settle},
				[]PromComponent{{Name: "c"}})
			if err != nil {
				t.Fatal(err)
			}
			pts, err := s.QueryRange(context.Background(), start, end)
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Since(end); got > lateSettles*tt.settle+time.Second {
				t.Errorf("returned %v after the end, want at most %d settles (%v) and a read", got, lateSettles, lateSettles*tt.settle)
			}
			if n := reads.Load(); n < tt.minReads || n > tt.maxReads {
				t.Errorf("raw samples read %d times, want %d to %d", n, tt.minReads, tt.maxReads)
			}
			u := summarize(s.Components()[0], SourcePrometheus, pts[0], window{idleStart: start, idleEnd: start, start: start, end: end})
			if !near(u.CPUMean, tt.wantCPU, 1e-3) {
				t.Errorf("mean CPU = %.6f, want %.6f", u.CPUMean, tt.wantCPU)
			}
		})
	}
}
