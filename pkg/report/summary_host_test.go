package report

import (
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func TestHostBusyLine(t *testing.T) {
	h := func(busy, self float64) results.Result {
		return results.Result{Host: &results.HostCPU{CPUs: 2, Seconds: 5, BusyCores: busy, SelfCores: self}}
	}
	tests := []struct {
		name string
		rs   []results.Result
		want string
	}{
		{"not read", []results.Result{{}, {}}, ""},
		{"one iteration", []results.Result{h(1.5, 0.5)},
			"**Host:** 2 CPUs, 75% busy (authbench 0.5 cores; everything else on the host 1 cores), from /proc/stat."},
		{"a range", []results.Result{h(1, 0.5), {}, h(1.8, 0.6)},
			"**Host:** 2 CPUs, 50–90% busy (authbench 0.5–0.6 cores; everything else on the host 0.5–1.2 cores), from /proc/stat."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hostBusyLine(tt.rs); got != tt.want {
				t.Errorf("hostBusyLine =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
