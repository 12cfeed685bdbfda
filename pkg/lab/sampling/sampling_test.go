package sampling

import (
	"context"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

func TestObserveLabNamedByPlan(t *testing.T) {
	tests := []struct {
		name           string
		planLab, flag  string
		wantErr        bool
		wantUnobserved bool
	}{
		{"plan names a lab that is not up", t.TempDir(), "", false, true},
		{"flag names a lab that is not up", "", t.TempDir(), true, false},
		{"no lab named", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan.Plan{Targets: []plan.Target{{Name: "t", URL: "http://127.0.0.1:1/"}}}
			p.Lab = tt.planLab
			obs, err := Observe(context.Background(), p, Options{LabDir: tt.flag, DefaultLabDir: t.TempDir()})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Observe error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if (obs.Unobserved != nil) != tt.wantUnobserved || obs.Monitor == nil {
				t.Errorf("observation = %+v, want unobserved %v and a monitor", obs, tt.wantUnobserved)
			}
		})
	}
}
