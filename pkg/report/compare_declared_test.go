package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// TestCompareSaysWhatIsComparedOnPurpose: the lab's 2x and 3x stacks, run
// alike, differ in their declared layers and so in the front layer's
// Server header. Markdown and HTML say so as context and raise no
// warning; a backend that silently changed too still warns.
func TestCompareSaysWhatIsComparedOnPurpose(t *testing.T) {
	const context = "layers route → oauth-proxy → http-echo (2.x) vs gateway → kube-auth-proxy → kube-rbac-proxy → http-echo (3x-lab); " +
		`the Server header differs with the front layer: (none) vs "nginx/1.22.1"`
	for _, silent := range []bool{false, true} {
		a, b := cxReported2x(), cxReported2x()
		b.Name = "3x-lab"
		b.Plan.Targets[0].Layers = []string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "http-echo"}
		b.Environment.Targets[0].Server = "nginx/1.22.1"
		if silent {
			b.Environment.Targets[0].BodySHA256 = cxNginx
		}
		c := cxCompare(t, []*results.Run{a, b}, analyze.CompareOptions{})
		md := renderCompare(t, c)
		var h bytes.Buffer
		if err := CompareHTML(&h, c); err != nil {
			t.Fatal(err)
		}
		for name, doc := range map[string]string{"markdown": md, "html": h.String()} {
			if !strings.Contains(doc, comparedOnPurpose) || !strings.Contains(strings.ReplaceAll(doc, "&#34;", `"`), context) {
				t.Errorf("%s (silent backend change %v) does not say what is compared on purpose", name, silent)
			}
			if strings.Contains(doc, "Different Server header") {
				t.Errorf("%s warns about the Server header the front layers account for", name)
			}
			if warned := strings.Contains(doc, "Different backend"); warned != silent {
				t.Errorf("%s: backend warning %v, want %v", name, warned, silent)
			}
		}
		if !silent && (strings.Contains(md, "not directly comparable") || strings.Contains(h.String(), `id="warnings"`)) {
			t.Error("a comparison that differs only on purpose should raise no warning")
		}
	}
}
