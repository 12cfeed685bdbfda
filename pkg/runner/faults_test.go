package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// TestRunRecordsFaults checks that the run asks the fault log for its own
// window once the load is over, and that run.json carries what it gave; a
// log that fails is a warning, not the run's error.
func TestRunRecordsFaults(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantLinks string
	}{
		{"events recorded", nil, "apiserver,apiserver"},
		{"unreadable log", errors.New("bad line"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked [2]time.Time
			faults := func(start, end time.Time) ([]results.FaultEvent, error) {
				asked = [2]time.Time{start, end}
				if tt.err != nil {
					return nil, tt.err
				}
				return []results.FaultEvent{{At: start, Link: results.LinkAPIServer, Action: results.FaultSet, DelayMs: 200},
					{At: end, Link: results.LinkAPIServer, Action: results.FaultClear}}, nil
			}
			var log strings.Builder
			out, err := Run(context.Background(), Options{Plan: stubPlan("http://127.0.0.1:1/"), Out: t.TempDir(),
				Executor: &stubExecutor{}, Faults: faults, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			if !asked[0].Equal(out.Run.Start) || !asked[1].Equal(out.Run.End) {
				t.Errorf("fault log asked for %v..%v, want the run's %v..%v", asked[0], asked[1], out.Run.Start, out.Run.End)
			}
			b, err := os.ReadFile(filepath.Join(out.Dir, results.RunFile))
			if err != nil {
				t.Fatal(err)
			}
			var links []string
			for _, ev := range out.Run.Faults {
				links = append(links, ev.Link)
			}
			if got := strings.Join(links, ","); got != tt.wantLinks {
				t.Errorf("Run.Faults links = %q, want %q", got, tt.wantLinks)
			}
			if inFile := strings.Contains(string(b), `"faults"`); inFile != (tt.wantLinks != "") {
				t.Errorf("run.json has faults = %v, want %v", inFile, tt.wantLinks != "")
			}
			if warned := strings.Contains(log.String(), "faults not recorded"); warned != (tt.err != nil) {
				t.Errorf("warning = %v, want %v: %s", warned, tt.err != nil, log.String())
			}
		})
	}
}
