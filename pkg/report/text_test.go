package report

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

func TestTextGolden(t *testing.T) {
	for _, f := range fxRuns() {
		t.Run(f.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, f.run(), TextOptions{RunDir: "runs/" + f.name}); err != nil {
				t.Fatal(err)
			}
			if m := badNumbers.FindString(b.String()); m != "" {
				t.Errorf("text contains %q", m)
			}
			testenv.Golden(t, "testdata/text/"+f.name+".txt", []byte(b.String()))
		})
	}
}

func TestTextContent(t *testing.T) {
	tests := []struct {
		name string
		run  func() string
		want []string
	}{
		{"hey layout", func() string {
			var b strings.Builder
			r := fxImportedRun().Results[0]
			if err := TextResult(&b, &r); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}, []string{
			"Summary:\n  Total:\t2.1043 secs\n  Slowest:\t0.0443 secs\n  Fastest:\t0.0003 secs\n  Average:\t0.0049 secs\n  Requests/sec:\t9503.4526\n",
			"Latency distribution:\n  50% in 0.0032 secs\n  75% in 0.0051 secs\n",
			"  99% in 0.0247 secs\n\nDetails",
			"  TLS handshake:\tnot measured\n",
			"  DNS-lookup:\tnot measured\n",
			"Status code distribution:\n  [200]\t20000 responses\n",
		}},
		{"errors and run directory", func() string {
			var b strings.Builder
			if err := WriteText(&b, fxFailedRun(), TextOptions{RunDir: "runs/down"}); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}, []string{
			"Error distribution:\n  [200]\trefused: dial tcp 127.0.0.1:1: connect: connection refused",
			"Latency distribution:\n  not measured\n",
			"\nResults: runs/down\n",
		}},
		{"open loop", func() string {
			var b strings.Builder
			if err := Text(&b, fxOpenRun()); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}, []string{
			"  Achieved rate:\t462.5000 (92.50% of target)\n",
			"  Late sends:\t1875 (40.54%)\n",
			"    99%:\t2.3100 secs / 0.0973 secs\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.run()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("text lacks %q in:\n%s", w, out)
				}
			}
		})
	}
}

func TestProgress(t *testing.T) {
	tests := []struct {
		name string
		in   ProgressState
		want string
	}{
		{"request bound", ProgressState{Target: "api", Iteration: 2, Iterations: 5, Done: 12345, Total: 20000, Errors: 12, Elapsed: 1300 * time.Millisecond},
			"api 2/5  12,345/20,000 ( 61.7%)     9496.2 req/s  12 errors (0.10%)  1.3s"},
		{"timed, no errors", ProgressState{Done: 500, Elapsed: 2 * time.Second, Duration: 30 * time.Second},
			"500 requests      250.0 req/s  0 errors  2s/30s"},
		{"nothing yet", ProgressState{Target: "api"}, "api  0 requests        0.0 req/s  0 errors  0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Progress(tt.in)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if strings.ContainsAny(got, "\r\n") {
				t.Errorf("progress line holds a line break: %q", got)
			}
		})
	}
}
