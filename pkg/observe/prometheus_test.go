package observe

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

func TestParseMatrix(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    map[int64]float64
		wantErr string
	}{
		{
			name:   "two series summed",
			status: 200,
			body: `{"status":"success","data":{"resultType":"matrix","result":[` +
				`{"metric":{"pod":"p-1"},"values":[[1700000000,"0.25"],[1700000001,"0.5"]]},` +
				`{"metric":{"pod":"p-2"},"values":[[1700000001,"0.25"]]}]}}`,
			want: map[int64]float64{1700000000000: 0.25, 1700000001000: 0.75},
		},
		{
			name:   "empty result",
			status: 200, body: `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
			want: map[int64]float64{},
		},
		{
			name:   "bad query",
			status: 400, body: `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:6: parse error"}`,
			wantErr: "bad_data: invalid parameter",
		},
		{name: "not the API", status: 502, body: `<html>Bad Gateway</html>`, wantErr: "HTTP 502"},
		{
			name:   "instant vector",
			status: 200, body: `{"status":"success","data":{"resultType":"vector","result":[]}}`,
			wantErr: "want matrix",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMatrix(tt.status, []byte(tt.body))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("at %d: %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestNewPrometheusRendersProfile(t *testing.T) {
	comps := []PromComponent{{Name: "kube-auth-proxy", Role: "auth-proxy", Namespace: "openshift-ingress",
		Pod: "kube-auth-proxy-.*", Container: "kube-auth-proxy"}}
	s, err := NewPrometheus(PromOptions{URL: "http://127.0.0.1:9090"}, comps)
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queries(0)
	if len(q) != len(DefaultProfile()) {
		t.Fatalf("%d queries", len(q))
	}
	want := `sum(rate(container_cpu_usage_seconds_total{namespace="openshift-ingress",pod=~"kube-auth-proxy-.*",container="kube-auth-proxy"}[1m]))`
	if q[0].MetricName != MetricCPU || q[0].Query != want {
		t.Errorf("cpu query = %s\nwant %s", q[0].Query, want)
	}
	if !strings.Contains(q[5].Query, "container_spec_cpu_quota") || !strings.Contains(q[5].Query, "/ sum(container_spec_cpu_period") {
		t.Errorf("cpu limit query = %s", q[5].Query)
	}
}

func TestNewPrometheusErrors(t *testing.T) {
	tests := []struct {
		name    string
		o       PromOptions
		wantErr string
	}{
		{"bad url", PromOptions{URL: "localhost:9090"}, "absolute http(s) URL"},
		{"unknown metric", PromOptions{URL: "http://127.0.0.1:9090", Profile: []plan.Metric{{MetricName: "cpuUsage", Query: "up"}}},
			`metricName "cpuUsage"`},
		{"bad template", PromOptions{URL: "http://127.0.0.1:9090", Profile: []plan.Metric{{MetricName: "cpu", Query: "{{.pod"}}},
			"entry 1 (cpu)"},
		{"unknown variable", PromOptions{URL: "http://127.0.0.1:9090", Profile: []plan.Metric{{MetricName: "cpu", Query: "{{.node}}"}}},
			"node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPrometheus(tt.o, []PromComponent{{Name: "c"}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestPromComponentsFromPlan(t *testing.T) {
	cs := []plan.Component{{Name: "local", PID: 1}, {Name: "k8s", Namespace: "ns", Pod: "p", Container: "c"}}
	got := PromComponentsFromPlan(cs)
	if len(got) != 1 || got[0].Name != "k8s" || got[0].Container != "c" {
		t.Errorf("got %+v", got)
	}
	if l := FromPlan(cs); len(l) != 1 || l[0].Name != "local" {
		t.Errorf("FromPlan = %+v", l)
	}
}
