package auth

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestSpecRecordsCommandRedacted: a spec written to run.json keeps the
// command's program and none of its arguments, in a pool's sources too.
func TestSpecRecordsCommandRedacted(t *testing.T) {
	const pw = "S3CRET-cmd-pw"
	for _, s := range []Spec{
		{Command: "curl -su admin:" + pw + " https://127.0.0.1/token", Refresh: "5m"},
		{Pool: &Pool{Sources: []Spec{{Command: "curl -u admin:" + pw}}}},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf) // as run.json is written
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if strings.Contains(string(b), pw) || !strings.Contains(string(b), `"command":"curl <redacted`) {
			t.Errorf("recorded %s: want the program kept and its arguments redacted", b)
		}
	}
}
