package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// TestRunBadInput checks that bad input exits 1 with a clear message (its
// golden file under testdata/errors/, refreshed with -update, plus the
// words it must hold whatever the golden says), prints nothing on stdout,
// writes no run and never panics. Scenario files live in testdata/bad/ and
// are named by relative path, so messages are the same on every machine.
// Nothing listens on 127.0.0.1:1: no case may get as far as sending.
func TestRunBadInput(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:1/"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"scenario-malformed", []string{"-f", "testdata/bad/malformed.yaml"},
			[]string{"testdata/bad/malformed.yaml:5:", "YAML"}},
		{"scenario-unknown-field", []string{"-f", "testdata/bad/unknown-field.yaml"},
			[]string{"unknown-field.yaml:6:", "load.concurency", "unknown field", `"concurrency"`}},
		{"scenario-rate-zero", []string{"-f", "testdata/bad/rate-zero.yaml"},
			[]string{"rate-zero.yaml:6:", "load.rate"}},
		{"scenario-negative-requests", []string{"-f", "testdata/bad/negative-requests.yaml"},
			[]string{"negative-requests.yaml:5:", "load.requests", "-5"}},
		{"scenario-bad-url", []string{"-f", "testdata/bad/bad-url.yaml"},
			[]string{"bad-url.yaml:6:", "targets[1].url", "ftp://127.0.0.1/file"}},
		{"scenario-missing", []string{"-f", "testdata/bad/no-such-scenario.yaml"},
			[]string{"no-such-scenario.yaml"}},
		{"scenario-and-url", []string{"-f", "testdata/valid.yaml", url},
			[]string{"either a URL or -f testdata/valid.yaml"}},
		{"scenario-with-zero-c", []string{"-f", "testdata/valid.yaml", "-c", "0"}, []string{"-c", "at least 1"}},
		{"url-scheme", []string{"ftp://127.0.0.1/"}, []string{"ftp://127.0.0.1/", "http or https"}},
		{"url-no-host", []string{"http://"}, []string{`"http://"`, "no host"}},
		{"url-unparsable", []string{"http://127.0.0.1:1/%zz"}, []string{"%zz"}},
		{"no-target", nil, []string{"no target"}},
		{"zero-n", []string{"-n", "0", "-c", "1", url}, []string{"-n", "at least 1"}},
		{"zero-iterations", []string{"-n", "5", "-c", "1", "--iterations", "0", url}, []string{"iterations", "at least 1"}},
		{"negative-n", []string{"-n", "-5", "-c", "1", url}, []string{"-n", "-5"}},
		{"zero-c", []string{"-n", "100", "-c", "0", url}, []string{"-c", "at least 1", "0"}},
		{"negative-c", []string{"-n", "100", "-c", "-3", url}, []string{"-c", "-3"}},
		{"negative-q", []string{"-q", "-5", "-z", "1s", url}, []string{"-q", "-5"}},
		{"c-above-n", []string{"-n", "5", "-c", "10", url}, []string{"-c 10", "-n 5"}},
		{"zero-timeout", []string{"-t", "0", url}, []string{"-t", "0"}},
		{"two-token-flags", []string{"--token-env", "A_TOKEN", "--token-file", "testdata/no-such-token", url},
			[]string{"--token-env", "--token-file", "one of"}},
		{"missing-body-file", []string{"-n", "5", "-c", "1", "-D", "testdata/no-such-body.json", url},
			[]string{"body file", "testdata/no-such-body.json"}},
		{"output-xml", []string{"--output", "xml", url}, []string{"--output", "xml", "text or json"}},
		{"bad-header", []string{"-H", "NoColon", url}, []string{"header", "Name: value"}},
		{"cert-without-key", []string{"--cert", "testdata/c.pem", url}, []string{"--cert", "--key"}},
		{"bad-warmup", []string{"--warmup", "soon", url}, []string{"--warmup", "soon"}},
		{"unknown-flag", []string{"--requests-per-second", "5", url}, []string{"--requests-per-second"}},
		// Values that reach the wire or the scheduler are refused before
		// anything is sent, naming the flag.
		{"rate-inf", []string{"-q", "Inf", "-z", "1s", url}, []string{"-q", "finite"}},
		{"rate-nan", []string{"-q", "NaN", "-z", "1s", url}, []string{"-q", "finite"}},
		{"rate-huge", []string{"-q", "1e300", "-z", "1s", url}, []string{"-q", "at most"}},
		{"host-injection", []string{"--host", "evil\r\nX-Injected: yes", url}, []string{"--host", "host"}},
		{"host-port", []string{"--host", "echo.example:70000", url}, []string{"--host", "70000"}},
		{"header-injection", []string{"-H", "X-A: a\r\nX-Injected: yes", url}, []string{"-H", "line break"}},
		{"header-name", []string{"-H", "Bad Name: x", url}, []string{"-H", "Bad Name"}},
		{"content-type-injection", []string{"-T", "text/plain\r\nX-Injected: yes", url}, []string{"-T", "line break"}},
		{"method-space", []string{"-m", "GE T", url}, []string{"-m", "GE T", "method"}},
		{"url-port", []string{"http://127.0.0.1:70000/"}, []string{"70000", "65535"}},
		{"requests-and-duration", []string{"-n", "5", "-z", "1s", url}, []string{"-n", "-z", "not both"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir() + "/runs"
			r := runCLI(t, append([]string{"run", "--out", out}, tc.args...)...)
			if r.code != ExitError {
				t.Errorf("exit %d, want %d", r.code, ExitError)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if !strings.HasPrefix(r.stderr, "authbench: ") {
				t.Errorf("stderr %q does not start with \"authbench: \"", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
				t.Errorf("bad input wrote %d entries under --out", len(entries))
			}
			testenv.Golden(t, "testdata/errors/"+tc.name+".golden", []byte(r.stderr))
		})
	}
}
