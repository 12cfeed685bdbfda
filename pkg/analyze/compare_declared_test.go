package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// TestCompareDeclaredDifferences tells what two runs declare as
// different (their layers, and the front layer's Server header that
// follows) from what silently differs (the backend's body): the first is
// context (Declared, an "On purpose" row), the second still warns.
func TestCompareDeclaredDifferences(t *testing.T) {
	layers3x := []string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "http-echo"}
	middle := []string{"route", "kube-auth-proxy", "http-echo"} // same front layer as 2.x
	tests := []struct {
		name       string
		layers     []string // the other side's declared layers; nil keeps 2.x's
		server     string   // the other side's Server header
		body       string   // the other side's body hash; "" keeps 2.x's
		declared   bool     // a Declared entry
		servers    bool     // ...that accounts for the Server header
		warnServer bool     // a warning about the Server header
		warnBody   bool     // a warning about the backend's body
	}{
		{"declared layers only", layers3x, "nginx/1.22.1", "", true, true, false, false},
		{"silent backend change", nil, "", nginxBody, false, false, false, true},
		{"declared layers and a silent backend change", layers3x, "nginx/1.22.1", nginxBody, true, true, false, true},
		{"same front layer, different Server header", middle, "nginx/1.22.1", "", true, false, true, false},
		{"Server header changed, no layers declared", nil, "nginx/1.22.1", "", false, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := reported2x(), reported2x()
			b.Name = "other"
			if tc.layers != nil {
				b.Plan.Targets[0].Layers = tc.layers
			}
			b.Environment.Targets[0].Server = tc.server
			if tc.body != "" {
				b.Environment.Targets[0].BodySHA256 = tc.body
			}
			c := mustCompare(t, []*results.Run{a, b}, CompareOptions{})
			if got := len(c.Declared) == 1; got != tc.declared {
				t.Fatalf("declared = %+v, want an entry: %v", c.Declared, tc.declared)
			}
			if tc.declared {
				d := c.Declared[0]
				if d.Side != 1 || !slices.Equal(d.Layers, tc.layers) || !slices.Equal(d.BaseLayers, a.Plan.Targets[0].Layers) {
					t.Errorf("declared = %+v", d)
				}
				if got := slices.Equal(d.Servers, []string{"", tc.server}); got != tc.servers {
					t.Errorf("servers = %q, want them accounted for: %v", d.Servers, tc.servers)
				}
			}
			var server, body bool
			for _, w := range c.Warnings {
				server = server || strings.Contains(w.Message, "Server header")
				body = body || strings.Contains(w.Message, "different bodies")
			}
			if server != tc.warnServer || body != tc.warnBody || (!tc.warnServer && !tc.warnBody && len(c.Warnings) > 0) {
				t.Errorf("warnings %+v: want Server header %v, body %v, nothing else", c.Warnings, tc.warnServer, tc.warnBody)
			}
			row := configRow(c, paramServer)
			if row.Differs && row.Critical == tc.servers {
				t.Errorf("Server header row %+v: critical unless the front layers account for it", row)
			}
			if arch := configRow(c, paramArchitecture); arch.Intended != tc.declared || (tc.declared && arch.Note() != "On purpose") {
				t.Errorf("architecture row %+v (note %q), want intended %v", arch, arch.Note(), tc.declared)
			}
		})
	}
}

func configRow(c *Comparison, param string) ConfigRow {
	for _, r := range c.Config {
		if r.Parameter == param {
			return r
		}
	}
	return ConfigRow{}
}
