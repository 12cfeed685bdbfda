package observe

import "testing"

func TestParseStat(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		comm     string
		cpu, rss float64
		wantErr  bool
	}{
		{
			name: "oauth2-proxy",
			in:   "4242 (oauth2-proxy) S 1 4242 4242 0 -1 1077936384 2531 0 0 0 1234 567 0 0 20 0 9 0 12345 745955328 5120 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0",
			comm: "oauth2-proxy", cpu: 18.01, rss: 5120 * pageSize,
		},
		{
			name: "comm with spaces and parentheses",
			in:   "7 (my (odd) proc) R 1 7 7 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0 1 1000 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
			comm: "my (odd) proc", cpu: 1.5, rss: 10 * pageSize,
		},
		{name: "truncated", in: "7 (x) R 1 7", wantErr: true},
		{name: "no comm", in: "garbage", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.comm != tt.comm || got.cpuSeconds != tt.cpu || got.rssBytes != tt.rss {
				t.Errorf("got %+v, want comm %q cpu %v rss %v", got, tt.comm, tt.cpu, tt.rss)
			}
		})
	}
}

func TestMatchesName(t *testing.T) {
	tests := []struct {
		name, comm, cmdline string
		want                bool
	}{
		{"oauth2-proxy", "oauth2-proxy", "/usr/bin/oauth2-proxy\x00--http-address=127.0.0.1:4180\x00", true},
		{"kube-rbac-proxy", "kube-rbac-proxy", "", true}, // comm cut to 15 bytes
		{"kube-rbac-proxy-extra", "kube-rbac-proxy", "", true},
		{"http-echo", "http-echo", "", true},
		{"nginx", "nginx: worker", "nginx: worker process\x00", false},
		{"envoy", "wrk:reg", "/home/u/.cache/authbench/tools/envoy-1.30/bin/envoy\x00-c\x00x\x00", true},
		{"echo", "http-echo", "/usr/bin/http-echo\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.comm, func(t *testing.T) {
			if got := matchesName(tt.name, tt.comm, []byte(tt.cmdline)); got != tt.want {
				t.Errorf("matchesName(%q, %q, %q) = %v", tt.name, tt.comm, tt.cmdline, got)
			}
		})
	}
}
