package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/plan"
)

// Every valid scenario loads, and its plan as recorded in run.json matches
// the golden .json beside it. Absolute paths are written as $TESTDATA.
func TestValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := Load(f)
			if err != nil {
				t.Fatalf("Load:\n%v", err)
			}
			// As run.json records it: completed by the orchestrator.
			p.Complete()
			if err := p.Validate(); err != nil {
				t.Errorf("plan does not validate: %v", err)
			}
			got, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(bytes.ReplaceAll(got, []byte(abs), []byte("$TESTDATA")), '\n')
			testenv.Golden(t, strings.TrimSuffix(f, ".yaml")+".json", got)
		})
	}
}

// Every invalid scenario fails with the errors in the golden .err beside it.
func TestInvalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := Load(f)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", p)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error is a %T, not Errors: %v", err, err)
			}
			for _, e := range errs {
				if e.File != f {
					t.Errorf("error names file %q, want %q", e.File, f)
				}
			}
			got := strings.ReplaceAll(err.Error(), abs, "$TESTDATA")
			testenv.Golden(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(got+"\n"))
		})
	}
}

// Values the golden JSON does not show: bodies, and where defaults apply.
func TestLoadedValues(t *testing.T) {
	tests := []struct {
		file  string
		check func(p *plan.Plan) error
	}{
		{"full.yaml", func(p *plan.Plan) error {
			if got := string(p.Targets[0].Body); got != "{\"hello\": \"world\"}\n" {
				return fmt.Errorf("body = %q", got)
			}
			if !filepath.IsAbs(p.Targets[0].Token.File) || !filepath.IsAbs(p.Client.CACert) {
				return fmt.Errorf("paths not absolute: %q %q", p.Targets[0].Token.File, p.Client.CACert)
			}
			if p.SLO.SuccessRate != 0.999 {
				return fmt.Errorf("success_rate = %v, want 0.999", p.SLO.SuccessRate)
			}
			return nil
		}},
		{"minimal.yaml", func(p *plan.Plan) error {
			want := plan.Load{Requests: plan.DefaultRequests, Concurrency: plan.DefaultConcurrency, Iterations: 1}
			if !reflect.DeepEqual(p.Load, want) || p.Name != "minimal" || p.Client.Timeout != plan.DefaultTimeout ||
				p.Targets[0].Method != "GET" || p.Targets[0].Name != "127.0.0.1:5678" || p.SLO != nil {
				return fmt.Errorf("defaults not applied: %+v", p)
			}
			return nil
		}},
		{"open-loop.yaml", func(p *plan.Plan) error {
			if p.Load.Model() != plan.Open || p.Load.Requests != 0 {
				return fmt.Errorf("load = %+v, want open model by duration", p.Load)
			}
			if got := string(p.Targets[0].Body); got != "{\"a\": 1}\n" {
				return fmt.Errorf("body = %q", got)
			}
			return nil
		}},
		{"anchors.yaml", func(p *plan.Plan) error {
			a, b := p.Targets[0], p.Targets[1]
			if a.Method != "GET" || b.Method != "HEAD" || b.Token.Command != "oc whoami -t" || len(b.Layers) != 3 {
				return fmt.Errorf("merge not applied: %+v / %+v", a, b)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := Load(filepath.Join("testdata/valid", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			p.Complete() // as the orchestrator does
			if err := tt.check(p); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, data string
		wantErr    string // "" for success
	}{
		{"relative to name", "targets: [{url: 'http://127.0.0.1/', body_file: body.json}]", ""},
		{"flow style", `{"targets": [{"url": "http://127.0.0.1/"}], "load": {"requests": 1, "concurrency": 1}}`, ""},
		{"null sections", "targets: [{url: 'http://127.0.0.1/'}]\nload:\nclient: ~\nslo:\n", ""},
		{"bom and crlf", "\ufefftargets:\r\n  - url: http://127.0.0.1/\r\n", ""},
		{"empty", "", "s.yaml: targets: at least one target is required"},
		{"unknown anchor", "targets: *nope\n", "s.yaml: malformed YAML: unknown anchor 'nope' referenced"},
		{"scalar document", "hello\n", `s.yaml:1: want a mapping (name:, targets:, load:, ...) at the top level, got "hello"`},
		{"integer overflow", "targets: [{url: 'http://127.0.0.1/'}]\nload: {requests: 99999999999999999999}\n",
			"s.yaml:2: load.requests: 99999999999999999999 is out of range"},
		{"int field overflow", "targets: [{url: 'http://127.0.0.1/'}]\nload: {concurrency: 9223372036854775807}\n",
			"s.yaml:2: load.concurrency"},
		{"warmup 1e3", "targets: [{url: 'http://127.0.0.1/'}]\nload: {warmup: 1e3}\n", ""},
		{"bare zero duration", "targets: [{url: 'http://127.0.0.1/'}]\nload: {delay: 0}\n", ""},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "s.yaml"
			if tt.name == "relative to name" {
				name = filepath.Join(dir, "s.yaml")
			}
			p, err := Parse(name, []byte(tt.data))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if p.Source != name || p.Name != "s" {
					t.Errorf("Source, Name = %q, %q", p.Source, p.Name)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse error = %v\nwant it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// A file with more problems than anyone wants to read stops at maxErrors.
func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("targets: [{url: 'http://127.0.0.1/'}]\n")
	for i := range maxErrors + 10 {
		fmt.Fprintf(&b, "unknown%d: x\n", i)
	}
	_, err := Parse("s.yaml", []byte(b.String()))
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error = %v", err)
	}
	if len(errs) != maxErrors+1 || !strings.Contains(errs[len(errs)-1].Msg, "too many problems") {
		t.Errorf("got %d errors, last %q", len(errs), errs[len(errs)-1])
	}
}

// Aliases that would expand into millions of values are refused quickly.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-0: &a0 {name: n, value: v}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "x-%d: &a%d\n  <<: [*a%d, *a%d]\n", i, i, i-1, i-1)
	}
	b.WriteString("targets:\n")
	for range 20 {
		b.WriteString("  - headers: [*a30, *a30, *a30]\n    url: http://127.0.0.1/\n")
	}
	_, err := Parse("s.yaml", []byte(b.String()))
	if err == nil {
		t.Fatal("Parse succeeded")
	}
}

// A scenario may hold a literal header value, and must never quote it back,
// nor a literal token put where a token source belongs.
func TestErrorsDoNotQuoteSecrets(t *testing.T) {
	const secret = "S3CRET-scenario-91f2"
	data := `targets:
  - url: http://127.0.0.1/
    headers: {Authorization: "Bearer ` + secret + `", "Bad Name": "` + secret + `"}
    token: ` + secret + `
  - url: http://127.0.0.1/
    headers: ["Cookie: ` + secret + "\\r\\nX: y" + `"]
    token: {value: ` + secret + `}
`
	_, err := Parse("s.yaml", []byte(data))
	if err == nil {
		t.Fatal("Parse succeeded")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error quotes the secret:\n%v", err)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n < 4 {
		t.Errorf("want 4 problems, got %d:\n%v", n, err)
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"requests", "duration", "concurrency", "rate", "client_id", "use_id_token"}
	tests := []struct{ in, want string }{
		{"concurency", "concurrency"},
		{"Requests", "requests"},
		{"clientId", "client_id"},
		{"client-id", "client_id"},
		{"rat", "rate"},
		{"frobnicate", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := suggest(tt.in, keys); got != tt.want {
				t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
