package lab

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// FaultLogFile is the lab's fault log, relative to the lab directory: one
// results.FaultEvent per line, appended each time a fault is set or
// cleared, so a run can copy the events of its window into run.json.
const FaultLogFile = "faults.jsonl"

// AppendFault appends one event to the lab's fault log. A line is written
// with one write to a file opened for appending, so concurrent writers do
// not interleave within it.
func AppendFault(dir string, ev results.FaultEvent) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding fault event: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, FaultLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("opening fault log: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("appending to fault log: %w", err)
	}
	return f.Close()
}

// ReadFaults reads the lab's fault log in time order; none when there is
// no log. A line that does not parse is an error naming the file and line.
func ReadFaults(dir string) ([]results.FaultEvent, error) {
	path := filepath.Join(dir, FaultLogFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading fault log: %w", err)
	}
	defer f.Close()
	var out []results.FaultEvent
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var ev results.FaultEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading fault log: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// FaultsDuring selects the events a run from start to end must record:
// those inside the window, and for each link the last set before start
// that was still in force then (not cleared, not expired).
func FaultsDuring(events []results.FaultEvent, start, end time.Time) []results.FaultEvent {
	inForce := map[string]results.FaultEvent{}
	var out []results.FaultEvent
	for _, ev := range events {
		switch {
		case ev.At.Before(start) && ev.Action == results.FaultClear:
			delete(inForce, ev.Link)
		case ev.At.Before(start):
			if ev.ForMs == 0 || ev.At.Add(time.Duration(ev.ForMs*float64(time.Millisecond))).After(start) {
				inForce[ev.Link] = ev
			}
		case !ev.At.After(end):
			out = append(out, ev)
		}
	}
	var before []results.FaultEvent
	for _, ev := range inForce {
		before = append(before, ev)
	}
	sort.Slice(before, func(i, j int) bool { return before[i].At.Before(before[j].At) })
	return append(before, out...)
}
