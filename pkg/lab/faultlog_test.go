package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

func TestFaultLog(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	evs := []results.FaultEvent{
		{At: at(0), Link: results.LinkKeycloak, Action: results.FaultSet, DelayMs: 50},
		{At: at(1), Link: results.LinkAPIServer, Action: results.FaultSet, Down: true, ForMs: 2000},
		{At: at(3), Link: results.LinkAPIServer, Action: results.FaultClear},
		{At: at(5), Link: results.LinkClient, Action: results.FaultSet, DelayMs: 45},
		{At: at(12), Link: results.LinkClient, Action: results.FaultClear},
		{At: at(20), Link: results.LinkAPIServer, Action: results.FaultSet, DelayMs: 200},
	}
	for _, ev := range []int{3, 0, 1, 2, 4, 5} { // out of order: the reader sorts
		if err := AppendFault(dir, evs[ev]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadFaults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(evs) || !got[0].At.Equal(evs[0].At) || got[5].DelayMs != 200 {
		t.Fatalf("read back %+v", got)
	}
	for _, tc := range []struct {
		name       string
		start, end int
		want       []string // link/action
	}{
		{"keycloak in force, apiserver expired and cleared, client inside", 4, 15, []string{"keycloak/set", "client/set", "client/clear"}},
		{"down in force at the start, its clear inside", 2, 4, []string{"keycloak/set", "apiserver/set", "apiserver/clear"}},
		{"after everything but the last set", 25, 30, []string{"keycloak/set", "apiserver/set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for _, ev := range FaultsDuring(got, at(tc.start), at(tc.end)) {
				names = append(names, ev.Link+"/"+ev.Action)
			}
			if strings.Join(names, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}
}

func TestFaultLogErrors(t *testing.T) {
	dir := t.TempDir()
	if evs, err := ReadFaults(dir); err != nil || evs != nil {
		t.Fatalf("no log: %v %v", evs, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FaultLogFile), []byte("{\"link\":\"client\"}\n{bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFaults(dir)
	if err == nil || !strings.Contains(err.Error(), FaultLogFile+":2") {
		t.Fatalf("want an error naming line 2, got %v", err)
	}
}
