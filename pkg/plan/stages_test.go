package plan

import (
	"strings"
	"testing"
	"time"
)

func TestParseStages(t *testing.T) {
	sec := func(n int) Duration { return Duration(time.Duration(n) * time.Second) }
	for _, tc := range []struct {
		in   string
		want Stages
		err  string // substring naming the bad part; "" means valid
	}{
		{"30s:100,60s:100-500,30s:500", Stages{{sec(30), 100, 100}, {sec(60), 100, 500}, {sec(30), 500, 500}}, ""},
		{" 4s : 100 , 2s:0-50 ", Stages{{sec(4), 100, 100}, {sec(2), 0, 50}}, ""},
		{"1m:2.5", Stages{{sec(60), 2.5, 2.5}}, ""},
		{"10s:500-100", Stages{{sec(10), 500, 100}}, ""},
		{"", nil, "no stage"},
		{"30s:100,", nil, `stage 2 "": empty`},
		{"30s", nil, `stage 1 "30s": no ':'`},
		{"30s:100,60x:5", nil, `stage 2 "60x:5": duration "60x"`},
		{"30s:100,60s:abc", nil, `stage 2 "60s:abc": rate "abc" is not a number`},
		{"30s:100-", nil, `stage 1 "30s:100-": rate missing`},
		{"30s:-5", nil, `rate missing`},
		{"0s:100", nil, `stage 1 "0s:100": duration must be positive`},
		{"-1s:100", nil, "duration must be positive"},
		{"5s:NaN", nil, "finite"},
		{"5s:1e300", nil, "at most"},
		{"5s:0", nil, "schedule no request"},
		{"1s:0.5", nil, "schedule no request"},
		{"200h:1", nil, "at most"},
		{strings.Repeat("1s:1,", MaxStages) + "1s:1", nil, "stages: at most"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseStages(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseStages(%q) error %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseStages(%q): %v", tc.in, err)
			}
			if got.String() != tc.want.String() || len(got) != len(tc.want) {
				t.Fatalf("ParseStages(%q) = %v, want %v", tc.in, got, tc.want)
			}
			back, err := ParseStages(got.String())
			if err != nil || back.String() != got.String() {
				t.Fatalf("round trip of %q: %v, %v", got, back, err)
			}
		})
	}
}

func TestStagesAt(t *testing.T) {
	ss, err := ParseStages("2s:100,4s:100-500")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at    time.Duration
		stage int
		rate  float64
	}{
		{0, 0, 100}, {1999 * time.Millisecond, 0, 100}, {2 * time.Second, 1, 100},
		{4 * time.Second, 1, 300}, {6 * time.Second, -1, 0}, {-time.Second, -1, 0},
	} {
		i, r := ss.At(tc.at)
		if i != tc.stage || r != tc.rate {
			t.Errorf("At(%s) = %d, %g; want %d, %g", tc.at, i, r, tc.stage, tc.rate)
		}
	}
	if got, want := ss.Total(), Duration(6*time.Second); got != want {
		t.Errorf("Total = %s, want %s", got, want)
	}
}

func TestValidateStages(t *testing.T) {
	ss := Stages{{Duration(time.Second), 10, 20}}
	for _, tc := range []struct {
		name  string
		given map[string]string
		ss    Stages
		want  string
	}{
		{"alone", nil, ss, ""},
		{"with -q", map[string]string{FieldStages: "--stages", FieldRate: "-q"}, ss, "stages (--stages): cannot be given with rate (-q)"},
		{"with duration", map[string]string{FieldStages: "s.yaml:4", FieldDuration: "s.yaml:3"}, ss, "s.yaml:4: load.stages: cannot be given with duration (s.yaml:3)"},
		{"with -n", map[string]string{FieldStages: "--stages", FieldRequests: "-n"}, ss, "requests (-n)"},
		{"bad stage", map[string]string{FieldStages: "s.yaml:4"}, Stages{ss[0], {0, 1, 1}}, "s.yaml:4: load.stages: stage 2 (0s:1): duration must be positive"},
		{"empty given", map[string]string{FieldStages: "s.yaml:4"}, nil, "no stage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}, Load: Load{Stages: tc.ss}}
			for f, o := range tc.given {
				p.Give(f, o)
			}
			err := p.Ready()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Load.Duration != ss.Total() || p.Load.Requests != 0 || p.Load.Model() != Open {
					t.Fatalf("completed load %+v: want the stages' duration, no request count, the open model", p.Load)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
