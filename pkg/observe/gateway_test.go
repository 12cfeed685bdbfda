package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/results"
)

// The fixtures are real answers: Envoy 1.40's /stats/prometheus (ext_authz
// with a 0.2 s timeout in front of an authz server that answered some
// tokens too late, some with 403) and HAProxy 2.8.25's exporter, each
// read before and after a load.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gateway", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFixtures(t *testing.T, kind string) (before, after GatewayReading) {
	t.Helper()
	parse := func(name string) GatewayReading {
		var g GatewayReading
		var err error
		if kind == "envoy" {
			g, err = ParseEnvoy(bytes.NewReader(readFixture(t, name)), EnvoyNames{})
		} else {
			g, err = ParseHAProxy(bytes.NewReader(readFixture(t, name)), HAProxyNames{})
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return g
	}
	before, after = parse(kind+"-before.txt"), parse(kind+"-after.txt")
	t0 := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	before.Time, after.Time = t0, t0.Add(10*time.Second)
	return before, after
}

func TestGatewayWindowGolden(t *testing.T) {
	for _, kind := range []string{"envoy", "haproxy"} {
		t.Run(kind, func(t *testing.T) {
			before, after := parseFixtures(t, kind)
			w := GatewayWindow("gw", before, after)
			if w == nil {
				t.Fatal("no window")
			}
			got, err := json.MarshalIndent(w, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "gateway", kind+"-window.golden.json"), append(got, '\n'))
		})
	}
}

// TestEnvoyWindowAccounts checks the window's arithmetic against the
// fixture's own totals: every downstream answer is one ext_authz decision,
// and the timeouts are errors.
func TestEnvoyWindowAccounts(t *testing.T) {
	before, after := parseFixtures(t, "envoy")
	w := GatewayWindow("", before, after)
	a := w.ExtAuthz
	if a == nil || a.Error == 0 || a.Denied == 0 || a.OK == 0 {
		t.Fatalf("ext_authz = %+v, want ok, denied and errors", a)
	}
	if got := a.OK + a.Denied + a.Error; got != w.Requests {
		t.Errorf("ok+denied+error = %d, downstream requests %d", got, w.Requests)
	}
	if a.Timeouts > a.Error {
		t.Errorf("timeouts %d > errors %d", a.Timeouts, a.Error)
	}
	if w.ByClass["4xx"] != a.Denied+a.Error {
		t.Errorf("4xx = %d, want denied+error %d", w.ByClass["4xx"], a.Denied+a.Error)
	}
	for name, tm := range map[string]*results.GatewayTiming{"authz": w.Authz, "upstream": w.Upstream, "downstream": w.Downstream} {
		if tm == nil || tm.P50 == nil || tm.P99 == nil {
			t.Fatalf("%s timing = %+v", name, tm)
		}
		if tm.P50.LowMs > tm.P99.LowMs || (!tm.P50.Open && tm.P50.LowMs >= tm.P50.HighMs) {
			t.Errorf("%s: p50 %+v p99 %+v", name, tm.P50, tm.P99)
		}
		if !tm.P50.Open && (tm.MeanMs <= 0) {
			t.Errorf("%s: mean %v", name, tm.MeanMs)
		}
	}
}

func TestQuantileBucket(t *testing.T) {
	h := Histogram{Bounds: []float64{1, 5, 10}, Cum: []float64{10, 60, 99, 100}}
	tests := []struct {
		q    float64
		want results.Bucket
	}{
		{0.05, results.Bucket{LowMs: 0, HighMs: 1}},
		{0.5, results.Bucket{LowMs: 1, HighMs: 5}},
		{0.9, results.Bucket{LowMs: 5, HighMs: 10}},
		{0.995, results.Bucket{LowMs: 10, Open: true}},
	}
	for _, tt := range tests {
		if got := h.quantileBucket(tt.q); got == nil || *got != tt.want {
			t.Errorf("q %v = %+v, want %+v", tt.q, got, tt.want)
		}
	}
}

func TestHistDeltaReset(t *testing.T) {
	before := &Histogram{Bounds: []float64{1}, Cum: []float64{50, 60}, Sum: 40}
	after := &Histogram{Bounds: []float64{1}, Cum: []float64{5, 6}, Sum: 4}
	d, ok := histDelta(before, after)
	if !ok || d.Count() != 6 {
		t.Errorf("after a reset: %+v %v, want the later reading", d, ok)
	}
	if _, ok := histDelta(&Histogram{Bounds: []float64{1, 2}, Cum: []float64{1, 1, 1}}, after); ok {
		t.Error("histograms of different bounds subtracted")
	}
}

func TestParseGatewayErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad value", "envoy_http_ext_authz_ok{envoy_http_conn_manager_prefix=\"gw\"} x\n", "line 1"},
		{"no prefix", "envoy_cluster_upstream_rq_total{envoy_cluster_name=\"a\"} 1\n", "no HTTP connection manager"},
		{"no inf", "envoy_http_ext_authz_ok{envoy_http_conn_manager_prefix=\"gw\"} 1\nenvoy_http_downstream_rq_time_bucket{envoy_http_conn_manager_prefix=\"gw\",le=\"1\"} 1\n", "+Inf"},
		{"bad le", "envoy_http_ext_authz_ok{envoy_http_conn_manager_prefix=\"gw\"} 1\nenvoy_http_downstream_rq_time_bucket{envoy_http_conn_manager_prefix=\"gw\",le=\"x\"} 1\n", "bucket bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEnvoy(strings.NewReader(tt.in), EnvoyNames{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ParseHAProxy(strings.NewReader("# nothing\n"), HAProxyNames{}); err == nil {
		t.Error("HAProxy metrics without a frontend accepted")
	}
}

// TestEnvoyAdminRead serves the fixture as Envoy's admin does and checks
// that Read asks twice (the first read starts Envoy's histogram merge) and
// filters to the families it parses.
func TestEnvoyAdminRead(t *testing.T) {
	body := readFixture(t, "envoy-after.txt")
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Query().Get("filter"))
		w.Write(body)
	}))
	defer srv.Close()
	e := &EnvoyAdmin{URL: srv.URL, Name: "gw", FlushWait: time.Millisecond}
	g, err := e.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[1] != envoyStatsFilter {
		t.Errorf("asked %q, want the filter twice", asked)
	}
	if g.Time.IsZero() || g.ExtAuthz == nil || g.ExtAuthz.OK == 0 {
		t.Errorf("reading = %+v", g)
	}
	h := &HAProxyMetrics{URL: srv.URL + "/metrics"}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) })
	if _, err := h.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v, want the status named", err)
	}
}

func FuzzParseGateway(f *testing.F) {
	for _, name := range []string{"envoy-before.txt", "haproxy-after.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gateway", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("envoy_http_ext_authz_ok{envoy_http_conn_manager_prefix=\"g\"} NaN\nenvoy_cluster_upstream_rq_time_bucket{envoy_cluster_name=\"ext_authz\",le=\"+Inf\"} 3\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, parse := range []func() (GatewayReading, error){
			func() (GatewayReading, error) { return ParseEnvoy(bytes.NewReader(in), EnvoyNames{}) },
			func() (GatewayReading, error) { return ParseHAProxy(bytes.NewReader(in), HAProxyNames{}) },
		} {
			g, err := parse()
			if err != nil {
				continue
			}
			g.Time = time.Unix(1, 0)
			later := g
			later.Time = time.Unix(2, 0)
			w := GatewayWindow("", g, later)
			if w == nil || w.Requests != 0 {
				t.Fatalf("a reading against itself: %+v", w)
			}
			if _, err := json.Marshal(w); err != nil {
				t.Fatalf("window does not encode: %v", err)
			}
		}
	})
}
