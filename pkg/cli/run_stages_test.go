package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/plan"
)

// TestStagesFlag checks --stages against flags and a scenario: it replaces
// a scenario's rate and length, a rate or length given by flag replaces a
// scenario's stages, and a pair of flags is refused naming both.
func TestStagesFlag(t *testing.T) {
	dir := t.TempDir()
	rate := writeFile(t, dir, "rate.yaml", "targets: [{url: http://127.0.0.1/}]\nload: {rate: 50, duration: 10s}\n")
	staged := writeFile(t, dir, "staged.yaml", "targets: [{url: http://127.0.0.1/}]\nload: {stages: \"2s:10,2s:10-20\"}\n")
	for _, tc := range []struct {
		name   string
		args   []string
		stages string // the plan's stages; "" none
		rate   float64
		err    string
	}{
		{"alone", []string{"--stages", "1s:5,2s:5-9", "http://127.0.0.1/"}, "1s:5,2s:5-9", 0, ""},
		{"over a scenario's rate", []string{"-f", rate, "--stages", "3s:7"}, "3s:7", 0, ""},
		{"a scenario's", []string{"-f", staged}, "2s:10,2s:10-20", 0, ""},
		{"-q over a scenario's", []string{"-f", staged, "-q", "30", "-z", "1s"}, "", 30, ""},
		{"with -q", []string{"--stages", "1s:5", "-q", "5", "http://127.0.0.1/"}, "", 0, "stages (--stages): cannot be given with rate (-q)"},
		{"with -n", []string{"--stages", "1s:5", "-n", "5", "http://127.0.0.1/"}, "", 0, "cannot be given with requests (-n)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &cobra.Command{Use: "run"}
			o := &runOptions{}
			o.addFlags(cmd)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			o.changed = cmd.Flags().Changed
			p, err := o.plan(context.Background(), cmd.Flags().Args(), os.Stderr)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Ready(); err != nil {
				t.Fatal(err)
			}
			if p.Load.Stages.String() != tc.stages || p.Load.Rate != tc.rate {
				t.Fatalf("stages %q, rate %g; want %q, %g", p.Load.Stages, p.Load.Rate, tc.stages, tc.rate)
			}
			if tc.stages != "" && (p.Load.Duration != p.Load.Stages.Total() || p.Load.Requests != 0 || p.Load.Model() != plan.Open) {
				t.Errorf("staged load %+v: want the stages' duration and no request count", p.Load)
			}
		})
	}
}

// TestStagesRefusedWhereRatesAreChosen: capacity has no --stages flag,
// and refuses a scenario's stages naming where they were given.
func TestStagesRefusedWhereRatesAreChosen(t *testing.T) {
	dir := t.TempDir()
	staged := writeFile(t, dir, "staged.yaml", "targets: [{url: http://127.0.0.1:1/}]\nload: {stages: \"2s:10\"}\nslo: {p99: 100ms}\n")
	r := runCLI(t, "capacity", "-f", staged)
	if r.code == 0 || !strings.Contains(r.stderr, "staged.yaml:2: load.stages: capacity chooses its own rates") {
		t.Fatalf("capacity with stages: exit %d, %s", r.code, r.stderr)
	}
	if r := runCLI(t, "capacity", "--stages", "1s:1", "--slo", "p99<1s", "http://127.0.0.1:1/"); r.code == 0 || !strings.Contains(r.stderr, "unknown flag: --stages") {
		t.Fatalf("capacity --stages: exit %d, %s", r.code, r.stderr)
	}
}
