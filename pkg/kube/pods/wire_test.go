package pods

import (
	"encoding/json"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestLineRoundTrip(t *testing.T) {
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	for v := int64(1); v <= 5000; v++ {
		h.RecordValue(v * 7)
	}
	enc, err := EncodeHist(h)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1700000000, 123000000).UTC()
	in := Line{Kind: KindInterval, Seq: 2, Time: at, End: at.Add(time.Second), Hist: enc}
	b, _ := json.Marshal(in)
	out, err := ParseLine(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeHist(out.Hist)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount() != h.TotalCount() || got.ValueAtQuantile(99) != h.ValueAtQuantile(99) || !out.Time.Equal(at) {
		t.Errorf("round trip: count %d p99 %d time %v; want %d %d %v", got.TotalCount(), got.ValueAtQuantile(99), out.Time, h.TotalCount(), h.ValueAtQuantile(99), at)
	}
}

func TestParseLineRejects(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"empty", ""},
		{"text", "panic: runtime error"},
		{"bad json", `{"kind":`},
		{"unknown kind", `{"kind":"nope"}`},
		{"negative seq", `{"kind":"end","seq":-1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseLine([]byte(tc.line)); err == nil {
				t.Errorf("ParseLine(%q): want an error", tc.line)
			}
		})
	}
}

// FuzzParseLine: pod logs are untrusted bytes; the parser must never
// panic, and whatever it accepts must be what encoding/json reads.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"kind":"ready"}`))
	f.Add([]byte(`{"kind":"interval","seq":1,"time":"2026-01-01T00:00:00Z","hist":"HISTFAAAACB4nJNpmSzMwMDAxgABzFCaEUzOmNZg/wEidQAdAAF7"}`))
	f.Add([]byte(`{"kind":"end","seq":3,"result":{"requests":3}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		if err != nil {
			return
		}
		var ref Line
		if json.Unmarshal(b, &ref) != nil || ref.Kind != l.Kind || ref.Seq != l.Seq {
			t.Fatalf("accepted %q as %+v; encoding/json reads %+v", b, l, ref)
		}
		DecodeHist(l.Hist)
	})
}
