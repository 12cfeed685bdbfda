package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const scenarioDoc = "../../docs/scenario.md"

// docExample is the annotated scenario of docs/scenario.md.
func docExample(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(scenarioDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- scenario-example")
	if !ok {
		t.Fatalf("%s has no scenario-example marker", scenarioDoc)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	body, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatalf("%s: no yaml block after the marker", scenarioDoc)
	}
	return body
}

// The documented example parses and means what its comments say, placed
// in a lab directory as the doc tells: the doc cannot drift from the code.
func TestDocExampleParses(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"tokens/alice", "secrets/keycloak-client-secret", "secrets/passwords/alice", "certs/ca.crt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Parse(filepath.Join(dir, "compare.yaml"), []byte(docExample(t)))
	if err != nil {
		t.Fatalf("the example in %s does not parse:\n%v", scenarioDoc, err)
	}
	p.Complete()
	if err := p.Validate(); err != nil {
		t.Fatalf("the example in %s does not validate: %v", scenarioDoc, err)
	}
	if p.Name != "lab-compare" || p.Lab != dir || len(p.Targets) != 2 || len(p.Targets[0].Rungs) != 3 ||
		p.Targets[1].Token.OIDC == nil || p.Targets[0].Headers[0].Name != "X-Request-Source" {
		t.Errorf("example plan: name %q, lab %q, targets %+v", p.Name, p.Lab, p.Targets)
	}
	if p.SLO == nil || p.SLO.P99.D() != 250*time.Millisecond || p.SLO.SuccessRate != 0.999 ||
		p.Load.WarmupRequests != 200 || p.SampleInterval.D() != 500*time.Millisecond {
		t.Errorf("example settings: slo %+v, load %+v, sample_interval %s", p.SLO, p.Load, p.SampleInterval)
	}
}

// Every key of the schema is documented.
func TestDocListsEveryKey(t *testing.T) {
	b, err := os.ReadFile(scenarioDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(rt reflect.Type, path string) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			f := rt.Field(i)
			key := f.Tag.Get("yaml")
			if key == "" {
				continue
			}
			if !strings.Contains(doc, "`"+key+"`") {
				t.Errorf("%s does not document %s", scenarioDoc, strings.TrimPrefix(path+"."+key, "."))
			}
			walk(f.Type, path+"."+key)
		}
	}
	walk(reflect.TypeOf(fileSpec{}), "")
}
