package importer

import (
	"math"
	"os"
	"testing"
)

// FuzzParse feeds hey and wrk outputs, real and mangled, to the parsers:
// they never panic, and every output they accept counts a request and
// states a finite, non-negative rate and duration.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"hey-200.txt", "hey-refused.txt", "wrk-200.txt", "wrk-404.txt"} {
		b, err := os.ReadFile(td(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\nSummary:\n  Total:\t1.3306 secs\n  Requests/sec:\t225.4586\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for tool, parse := range map[string]func([]byte, string) ([]parsed, error){ToolHey: parseHey, ToolWrk: parseWrk} {
			ps, err := parse(data, "fuzz.txt")
			if err != nil {
				continue
			}
			for _, p := range ps {
				r := p.result
				if tool == ToolHey && r.Requests <= 0 {
					t.Errorf("%s: accepted an output counting %d requests", tool, r.Requests)
				}
				for name, x := range map[string]float64{"rate": r.ThroughputRPS, "duration": r.DurationS} {
					if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
						t.Errorf("%s: accepted %s %g", tool, name, x)
					}
				}
			}
		}
	})
}
