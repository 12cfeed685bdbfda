package scenario

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, every
// failure must be Errors naming the file, and every success a valid plan.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("<<: {targets: [{url: 'http://127.0.0.1/'}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error is %T %v, want non-empty Errors", err, err)
			}
			for _, e := range errs {
				if e.File != "fuzz.yaml" || e.Msg == "" || e.Line < 0 {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse accepted a plan that does not validate: %v", err)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("plan does not marshal: %v", err)
		}
	})
}
