package sampling

import (
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
)

// TestLabFaults checks that a run gets the lab's faults of its window and
// the one in force when it began, not those cleared before it.
func TestLabFaults(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs := []results.FaultEvent{
		{At: t0, Link: results.LinkKeycloak, Action: results.FaultSet, Down: true},
		{At: t0.Add(time.Second), Link: results.LinkKeycloak, Action: results.FaultClear},
		{At: t0.Add(2 * time.Second), Link: results.LinkAPIServer, Action: results.FaultSet, DelayMs: 200},
		{At: t0.Add(20 * time.Second), Link: results.LinkAPIServer, Action: results.FaultClear},
		{At: t0.Add(60 * time.Second), Link: results.LinkClient, Action: results.FaultSet, DelayMs: 45},
	}
	for _, ev := range evs {
		if err := lab.AppendFault(dir, ev); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		dir        string
		start, end time.Duration
		want       int
	}{
		{"in force and cleared inside", dir, 10 * time.Second, 30 * time.Second, 2},
		{"nothing in the window", dir, 30 * time.Second, 50 * time.Second, 0},
		{"no log", t.TempDir(), 0, time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LabFaults(tt.dir)(t0.Add(tt.start), t0.Add(tt.end))
			if err != nil || len(got) != tt.want {
				t.Fatalf("LabFaults = %+v, %v; want %d events", got, err, tt.want)
			}
		})
	}
}
