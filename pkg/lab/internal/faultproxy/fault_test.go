package faultproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
)

func TestToxics(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		f    lab.Fault
		want []Toxic
	}{
		{"even delay", lab.Fault{Link: "apiserver", Delay: 200 * ms}, []Toxic{
			{Name: "authbench-delay-up", Type: "latency", Stream: "upstream", Toxicity: 1, Attributes: map[string]int{"latency": 100, "jitter": 0}},
			{Name: "authbench-delay-down", Type: "latency", Stream: "downstream", Toxicity: 1, Attributes: map[string]int{"latency": 100, "jitter": 0}}}},
		{"odd delay and jitter", lab.Fault{Link: "client", Delay: 45 * ms, Jitter: 5 * ms}, []Toxic{
			{Name: "authbench-delay-up", Type: "latency", Stream: "upstream", Toxicity: 1, Attributes: map[string]int{"latency": 22, "jitter": 2}},
			{Name: "authbench-delay-down", Type: "latency", Stream: "downstream", Toxicity: 1, Attributes: map[string]int{"latency": 23, "jitter": 3}}}},
		{"bandwidth", lab.Fault{Link: "client", BandwidthKBps: 512}, []Toxic{
			{Name: "authbench-bandwidth-upstream", Type: "bandwidth", Stream: "upstream", Toxicity: 1, Attributes: map[string]int{"rate": 512}},
			{Name: "authbench-bandwidth-downstream", Type: "bandwidth", Stream: "downstream", Toxicity: 1, Attributes: map[string]int{"rate": 512}}}},
		{"down is no toxic", lab.Fault{Link: "apiserver", Down: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Toxics(tc.f)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tc.want)
			if string(gb) != string(wb) {
				t.Errorf("Toxics = %s\nwant %s", gb, wb)
			}
			// Reading the toxics back gives the fault again (For aside).
			back, has := fromProxy(tc.f.Link, Proxy{Enabled: !tc.f.Down, Toxics: got})
			if !has || back != tc.f {
				t.Errorf("fromProxy = %+v, %v; want %+v", back, has, tc.f)
			}
		})
	}
	if f, has := fromProxy("apiserver", Proxy{Enabled: true}); has {
		t.Errorf("a clean proxy reads as fault %+v", f)
	}
}

// fakeAPI is an in-memory Toxiproxy API: enough of it for Apply, Clear
// and Faults.
type fakeAPI struct {
	mu      sync.Mutex
	proxies map[string]*Proxy
	calls   []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/proxies":
		_ = json.NewEncoder(w).Encode(f.proxies)
	case len(parts) == 2 && r.Method == http.MethodPatch:
		var in struct{ Enabled bool }
		_ = json.Unmarshal(body, &in)
		f.proxies[parts[1]].Enabled = in.Enabled
	case len(parts) == 3 && r.Method == http.MethodPost:
		var tx Toxic
		_ = json.Unmarshal(body, &tx)
		p := f.proxies[parts[1]]
		for _, old := range p.Toxics {
			if old.Name == tx.Name {
				w.WriteHeader(http.StatusConflict)
				_, _ = w.Write([]byte(`{"error":"toxic already exists","status":409}`))
				return
			}
		}
		p.Toxics = append(p.Toxics, tx)
	case len(parts) == 4 && r.Method == http.MethodDelete:
		p := f.proxies[parts[1]]
		for i, tx := range p.Toxics {
			if tx.Name == parts[3] {
				p.Toxics = append(p.Toxics[:i], p.Toxics[i+1:]...)
				break
			}
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func TestApplyReplacesAndClearRestores(t *testing.T) {
	api := &fakeAPI{proxies: map[string]*Proxy{
		"client-2x": {Name: "client-2x", Enabled: true}, "client-3x": {Name: "client-3x", Enabled: true}}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c := New(strings.TrimPrefix(srv.URL, "http://"))
	ctx := context.Background()
	names := []string{"client-2x", "client-3x"}
	links := []lab.LinkInfo{{Name: "client", Proxies: []lab.FaultProxy{{Name: "client-2x"}, {Name: "client-3x"}}}}
	steps := []lab.Fault{
		{Link: "client", Delay: 45 * time.Millisecond},
		{Link: "client", Delay: 10 * time.Millisecond, BandwidthKBps: 100},
		{Link: "client", Down: true},
	}
	for _, f := range steps {
		if err := Apply(ctx, c, names, f); err != nil {
			t.Fatalf("Apply(%+v): %v", f, err)
		}
		got, err := Faults(ctx, c, links)
		if err != nil || len(got) != 1 || got[0] != f {
			t.Fatalf("after Apply(%+v): Faults = %+v, %v", f, got, err)
		}
		for _, n := range names {
			if p := api.proxies[n]; p.Enabled == f.Down || len(p.Toxics) != len(Toxics(f)) {
				t.Errorf("%s after Apply(%+v): %+v", n, f, p)
			}
		}
	}
	if err := Clear(ctx, c, names); err != nil {
		t.Fatal(err)
	}
	if got, err := Faults(ctx, c, links); err != nil || len(got) != 0 {
		t.Errorf("after Clear: Faults = %+v, %v", got, err)
	}
	if err := Clear(ctx, c, []string{"keycloak"}); err == nil || !strings.Contains(err.Error(), `no proxy "keycloak"`) {
		t.Errorf("Clear of an unknown proxy: %v", err)
	}
}

func TestAPIErrorsAreNamed(t *testing.T) {
	api := &fakeAPI{proxies: map[string]*Proxy{"apiserver": {Name: "apiserver", Enabled: true,
		Toxics: []Toxic{{Name: "authbench-delay-up"}}}}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c := New(strings.TrimPrefix(srv.URL, "http://"))
	err := c.AddToxic(context.Background(), "apiserver", Toxic{Name: "authbench-delay-up", Type: "latency"})
	if err == nil || !strings.Contains(err.Error(), "status 409: toxic already exists") {
		t.Errorf("AddToxic of a duplicate: %v", err)
	}
	srv.Close()
	if _, err := c.Proxies(context.Background()); err == nil || !strings.Contains(err.Error(), "toxiproxy GET /proxies") {
		t.Errorf("Proxies with the API gone: %v", err)
	}
}
