package toolcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStampRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := Stamp{Name: "http-echo", Version: "v1.0.0", Inputs: "abc", GoVersion: "go1.26.8",
		Built: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seconds: 12.5}
	if err := writeStamp(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := readStamp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("readStamp = %+v, want %+v", got, want)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("atomic write left %v", leftovers)
	}
}

func TestUpToDate(t *testing.T) {
	tests := []struct {
		name             string
		bin, stamp, good bool
		wantOK           bool
		wantWhy          string
	}{
		{"nothing", false, false, false, false, "not installed"},
		{"binary without stamp", true, false, false, false, "no stamp"},
		{"stamp of another recipe", true, true, false, false, "recipe changed"},
		{"stamp without binary", false, true, true, false, "not installed"},
		{"binary and matching stamp", true, true, true, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin", "tool")
			if tc.bin {
				fakeExecutable(t, bin)
			}
			if tc.stamp {
				inputs := "other"
				if tc.good {
					inputs = "want"
				}
				if err := writeStamp(dir, Stamp{Inputs: inputs}); err != nil {
					t.Fatal(err)
				}
			}
			ok, why := upToDate(dir, bin, "want")
			if ok != tc.wantOK || why != tc.wantWhy {
				t.Errorf("upToDate = %v, %q; want %v, %q", ok, why, tc.wantOK, tc.wantWhy)
			}
		})
	}
}

func TestUpToDateNeedsExecutable(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "tool")
	fakeExecutable(t, bin)
	if err := os.Chmod(bin, 0o644); err != nil {
		t.Fatal(err)
	}
	writeStamp(dir, Stamp{Inputs: "want"})
	if ok, _ := upToDate(dir, bin, "want"); ok {
		t.Error("a non-executable binary counts as installed")
	}
}
