package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

func TestSafeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"oauth-2x", "oauth-2x"},
		{"route 2x/oauth", "route-2x-oauth"},
		{"127.0.0.1:8080", "127.0.0.1-8080"},
		{"../..", "run"},
		{"", "run"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := SafeName(tc.in); got != tc.want {
				t.Fatalf("SafeName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNewRunDirUnique(t *testing.T) {
	out := t.TempDir()
	at := time.Date(2025, 11, 18, 9, 30, 0, 0, time.UTC)
	a, err := NewRunDir(out, "demo", at)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewRunDir(out, "demo", at)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(a) != "20251118T093000Z-demo" || filepath.Base(b) != "20251118T093000Z-demo-2" {
		t.Fatalf("got %s and %s", filepath.Base(a), filepath.Base(b))
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "x", ID: "id1",
		Results: []results.Result{{Target: "t", Iteration: 1, Requests: 10, Successes: 9}}}
	if err := Write(dir, run); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, results.RunFile)} {
		got, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != "id1" || len(got.Results) != 1 || got.Results[0].Successes != 9 {
			t.Fatalf("round trip from %s: %+v", p, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil {
		t.Fatal("reading a directory without run.json must fail")
	}
	os.WriteFile(filepath.Join(dir, results.RunFile), []byte(`{"schema_version": 99}`), 0o644)
	if _, err := Read(dir); err == nil {
		t.Fatal("a newer schema must be refused")
	}
	tl, err := ReadTimeline(dir)
	if err != nil || len(tl.Series) != 0 {
		t.Fatalf("missing timeline should be empty, got %v %v", tl, err)
	}
}
