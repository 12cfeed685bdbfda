package capacity

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/plan"
)

// goldenSearch is a deterministic search of an 800 req/s target behind a
// proxy limited to half a core, on a 2-CPU host.
func goldenSearch(t *testing.T, slo plan.SLO, capacity float64, o func(*Options)) *Result {
	t.Helper()
	s := newSim(capacity)
	s.comps = func(rate float64) []Component {
		proxy := math.Min(rate*0.001, 0.5)
		return []Component{{Name: "authbench", Role: "load-generator", Source: "local", CPU: rate * 0.0005},
			{Name: "kube-auth-proxy", Role: "auth-proxy", Source: "local", CPU: proxy, Limit: 0.5},
			{Name: "http-echo", Role: "backend", Source: "local", CPU: rate * 0.0008}}
	}
	opts := s.options(slo)
	if o != nil {
		o(&opts)
	}
	r, err := Search(context.Background(), s.measure, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.Target = "gateway"
	return r
}

func TestWriteTextGolden(t *testing.T) {
	slo := p99Under50
	slo.Throughput = 1000
	tests := []struct {
		name string
		r    *Result
	}{
		{"found", goldenSearch(t, p99Under50, 800, nil)},
		{"throughput-unmet", goldenSearch(t, slo, 800, nil)},
		{"below-min", goldenSearch(t, p99Under50, 5, nil)},
		{"max", goldenSearch(t, p99Under50, 1e6, func(o *Options) { o.Max = 300 })},
		{"budget", goldenSearch(t, p99Under50, 800, func(o *Options) { o.Budget = 20 * time.Second })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, "testdata/"+tt.name+".txt", b.Bytes())
		})
	}
}

// TestWriteJSON: the JSON reads back into the same Result, and carries
// the chart's data (the curve) and the capacity's bounds.
func TestWriteJSON(t *testing.T) {
	r := goldenSearch(t, p99Under50, 800, nil)
	var b bytes.Buffer
	if err := WriteJSON(&b, []*Result{r}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"capacity_rps"`, `"first_fail_rps"`, `"curve"`, `"offered_rps"`, `"p99_ms"`, `"knee"`, `"bottleneck"`, `"host"`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var back []*Result
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0].Capacity != r.Capacity || len(back[0].Steps) != len(r.Steps) ||
		back[0].Steps[3].Offered != r.Steps[3].Offered || back[0].SLO != r.SLO {
		t.Errorf("JSON does not read back: %+v", back)
	}
}

func TestSLOText(t *testing.T) {
	for _, tt := range []struct {
		slo  plan.SLO
		want string
	}{
		{p99Under50, "p99<50ms,success_rate>=99.9%"},
		{plan.SLO{P50: plan.Duration(time.Millisecond), P95: plan.Duration(2 * time.Millisecond), Throughput: 100}, "p50<1ms,p95<2ms,throughput>=100"},
		{plan.SLO{}, "no SLO (keeping up only)"},
	} {
		if got := SLOText(tt.slo); got != tt.want {
			t.Errorf("SLOText(%+v) = %q, want %q", tt.slo, got, tt.want)
		}
	}
}
