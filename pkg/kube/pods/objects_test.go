package pods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

// TestJobPullSecretAndImage: the Job's pod runs the image as given (a
// digest reference stays one) and names the pull secret only when given.
func TestJobPullSecretAndImage(t *testing.T) {
	const img = "127.0.0.1:5000/team/authbench@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name   string
		secret string
		want   string
	}{
		{"no secret", "", ""},
		{"secret", "registry-pull", `"imagePullSecrets":[{"name":"registry-pull"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Execution: plan.Execution{Pods: 2, Image: img}, PullPolicy: "IfNotPresent"}
			if tc.secret != "" {
				o.PullSecret = plan.MustObjectName(tc.secret)
			}
			e := &Executor{o: o, id: "abcd", name: plan.MustObjectName("authbench-abcd")}
			b, err := json.Marshal(e.jobObject())
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if !strings.Contains(s, `"image":"`+img+`"`) {
				t.Errorf("job does not run %s: %s", img, s)
			}
			if got := strings.Contains(s, "imagePullSecrets"); got != (tc.want != "") || !strings.Contains(s, tc.want) {
				t.Errorf("job %s: want pull secrets %q", s, tc.want)
			}
		})
	}
}
