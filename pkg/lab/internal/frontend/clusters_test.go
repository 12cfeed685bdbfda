package frontend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

func TestParseClusters(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[string]int
	}{
		{"empty", "", map[string]int{}},
		{"settings lines only", "ext::default_priority::max_connections::1024\n", map[string]int{}},
		{"hosts counted once across stats",
			"ext::127.0.0.1:1::cx_active::0\next::127.0.0.1:1::rq_total::3\next::127.0.0.1:2::cx_active::0\n",
			map[string]int{"ext": 2}},
		{"two clusters", "a::127.0.0.1:1::cx_active::0\nb::127.0.0.1:2::cx_active::0\n", map[string]int{"a": 1, "b": 1}},
		{"short and odd lines skipped", "a::127.0.0.1:1\nnoise\n::\na::h:1::x::0\n", map[string]int{"a": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseClusters([]byte(tc.body))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ParseClusters = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzParseClusters(f *testing.F) {
	f.Add([]byte("ext::127.0.0.1:1::cx_active::0\next::default_priority::max_connections::1024\n"))
	f.Add([]byte("::::\n:::\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got := ParseClusters(body)
		lines := strings.Count(string(body), "\n") + 1
		for c, n := range got {
			if n < 1 || n > lines {
				t.Fatalf("cluster %q counts %d hosts from %d lines", c, n, lines)
			}
		}
	})
}

func TestWaitEndpoints(t *testing.T) {
	gw := stacks.Gateway{Name: "gw", ExtAuthz: stacks.Endpoint{Host: stacks.Loopback, Port: 1},
		Backend: stacks.Endpoint{Host: stacks.Loopback, Port: 2}}
	var body strings.Builder
	for _, ce := range gw.EDSFiles(0) {
		for _, e := range ce.Endpoints {
			fmt.Fprintf(&body, "%s::%s:%d::cx_active::0\n", ce.Cluster, e.Host, e.Port)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, body.String())
	}))
	defer srv.Close()
	w := Wait{Within: 2 * time.Second, Every: 10 * time.Millisecond}
	if err := WaitEndpoints(context.Background(), srv.Client(), srv.URL, gw, w); err != nil {
		t.Errorf("WaitEndpoints with the endpoints listed: %v", err)
	}
	gw.MoreExtAuthz = []stacks.Endpoint{{Host: stacks.Loopback, Port: 3}}
	w.Within = 50 * time.Millisecond
	if err := WaitEndpoints(context.Background(), srv.Client(), srv.URL, gw, w); err == nil {
		t.Error("WaitEndpoints with a replica missing: no error")
	}
}
