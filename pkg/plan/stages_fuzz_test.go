package plan

import (
	"math"
	"testing"
)

// FuzzParseStages holds --stages to its promises on any bytes: no panic;
// an accepted schedule passes CheckStages, schedules at least one
// request, and reads back the same from its own String.
func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"30s:100,60s:100-500,30s:500", "1s:0-1", "1s:1e-3", "1ms:1e7", ":", ",", "1s:1-2-3",
		"1s:+5", "1s: 5 - 6 ", "9223372036s:1", "1h:-0", "1s:0x10", "1s:1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ss, err := ParseStages(s)
		if err != nil {
			if ss != nil {
				t.Fatalf("ParseStages(%q) returned stages with error %v", s, err)
			}
			return
		}
		if err := CheckStages(ss); err != nil {
			t.Fatalf("ParseStages(%q) accepted what CheckStages refuses: %v", s, err)
		}
		var n float64
		for _, st := range ss {
			n += st.Requests()
		}
		if !(n >= 1) || math.IsInf(n, 0) {
			t.Fatalf("ParseStages(%q) schedules %g requests", s, n)
		}
		back, err := ParseStages(ss.String())
		if err != nil || back.String() != ss.String() {
			t.Fatalf("round trip of %q: %q, %v", ss, back, err)
		}
	})
}
