//go:build integration

package runner_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

// TestPrometheusAgreesWithLocalOnOAuth2Proxy runs a real Prometheus
// (Debian's) scraping oauth2-proxy's own /metrics every second, puts load
// through the 3x stack, and compares, per iteration window, the CPU that
// observe's Prometheus sampler (ProcessProfile: process_cpu_seconds_total)
// reports for oauth2-proxy with what the local sampler read from its cgroup.
func TestPrometheusAgreesWithLocalOnOAuth2Proxy(t *testing.T) {
	st := needLab(t)
	bin := testenv.NeedTools(t, exec.LookPath, "apt-get install -y prometheus", "prometheus")[0]
	port, ok := st.Ports[stacks.PortOAuth2ProxyMetrics]
	if !ok {
		t.Fatalf("the lab exposes no %s port: %v", stacks.PortOAuth2ProxyMetrics, st.Ports)
	}
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	checkExposes(t, "http://"+target+"/metrics", "process_cpu_seconds_total")
	const job = stacks.OAuth2Proxy // ProcessProfile selects {job="{{.name}}"}
	promURL := startPrometheus(t, bin, job, target)
	waitScraped(t, promURL, job)

	// The sampler stamps each value with its query step's time, not its
	// scrape's, so a window that ends in idleness loses up to one scrape
	// interval of load: up to 1s in 10s (it measured 9.4% low), hence
	// 20s windows. Iteration 1 follows the warm-up, iteration 2 an idle gap.
	p := labPlan(t, "prometheus-vs-local", plan.Load{Concurrency: 16, Iterations: 2,
		Duration: plan.Duration(20 * time.Second), WarmupDuration: plan.Duration(time.Second)})
	// A Pod makes the component a Prometheus one; the process profile
	// ignores it and selects the scrape job by the component's name.
	p.Observe = []plan.Component{{Name: stacks.OAuth2Proxy, Role: "ext-authz", Pod: stacks.OAuth2Proxy}}
	p.Prometheus = &plan.Prometheus{URL: promURL, Profile: observe.ProcessProfile(),
		Settle: plan.Duration(2 * time.Second)}
	run, _ := runLab(t, p)
	onlyStatus(t, run, "200")
	for _, r := range run.Results {
		local, ok1 := usage(r, stacks.OAuth2Proxy, observe.SourceLocal)
		prom, ok2 := usage(r, stacks.OAuth2Proxy, observe.SourcePrometheus)
		if !ok1 || !ok2 {
			t.Fatalf("iteration %d: oauth2-proxy sampled locally %v, by prometheus %v; components %+v", r.Iteration, ok1, ok2, r.Components)
		}
		d := math.Abs(prom.CPUMean-local.CPUMean) / local.CPUMean
		t.Logf("iteration %d (%.1f s, %.0f req/s): oauth2-proxy CPU mean local %.3f, prometheus %.3f cores (%.1f%% apart); "+
			"peak %.3f / %.3f; idle %.4f / %.4f; CPU-s per 1k %.3f / %.3f; RSS peak %.0f / %.0f MB",
			r.Iteration, r.DurationS, r.ThroughputRPS, local.CPUMean, prom.CPUMean, d*100, local.CPUPeak, prom.CPUPeak,
			local.CPUIdle, prom.CPUIdle, local.CPUSecondsPer1k, prom.CPUSecondsPer1k, local.MemPeak/1e6, prom.MemPeak/1e6)
		if local.CPUMean < 0.1 {
			t.Errorf("iteration %d: oauth2-proxy used %.3f cores under load; too little to compare", r.Iteration, local.CPUMean)
		}
		if d > 0.10 {
			t.Errorf("iteration %d: prometheus CPU %.3f vs local %.3f cores: %.1f%% apart, want within 10%%",
				r.Iteration, prom.CPUMean, local.CPUMean, d*100)
		}
	}
}

// checkExposes fails unless u serves metric in the Prometheus text format.
func checkExposes(t *testing.T, u, metric string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "\n"+metric+" ") {
		t.Fatalf("GET %s: status %d, no %s in %d bytes", u, resp.StatusCode, metric, len(b))
	}
}

// startPrometheus runs prometheus on a free loopback port with its own data
// dir, scraping target every second as job, and waits until it is ready.
func startPrometheus(t *testing.T, bin, job, target string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"+
		"scrape_configs:\n  - job_name: %s\n    static_configs:\n      - targets: ['%s']\n", job, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("prometheus not ready on %s after 60s:\n%s", addr, log)
	return ""
}

// waitScraped waits until Prometheus holds a few seconds of job's samples,
// so that the run's idle baseline has history too.
func waitScraped(t *testing.T, base, job string) {
	t.Helper()
	q := base + "/api/v1/query?query=" + url.QueryEscape(`count_over_time(up{job="`+job+`"}[1m]) and up{job="`+job+`"} == 1`)
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		n, err := scalarQuery(q)
		if err == nil && n >= 4 {
			return
		}
		last = fmt.Sprintf("%v samples, %v", n, err)
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("prometheus has not scraped %s (%s) within 30s: %s", job, q, last)
}

// scalarQuery runs an instant query and returns its first sample's value.
func scalarQuery(u string) (float64, error) {
	resp, err := http.Get(u)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if len(r.Data.Result) == 0 {
		return 0, fmt.Errorf("no result")
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
