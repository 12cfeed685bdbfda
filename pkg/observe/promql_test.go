package observe

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestEscapeLabelValue: each value escapes to the inside of a PromQL
// string that reads back as the value, with no bare quote or newline.
func TestEscapeLabelValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"authbench", "authbench"},
		{"kube-auth-proxy-.*", "kube-auth-proxy-.*"},
		{`app"} or vector(1) #`, `app\"} or vector(1) #`},
		{`a\b`, `a\\b`},
		{`\d+`, `\\d+`},
		{"a\nb", `a\nb`},
		{"a\rb\tc", `a\rb\tc`},
		{"\x00", `\x00`},
		{`\"`, `\\\"`},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := EscapeLabelValue(tc.in)
			if got != tc.want {
				t.Errorf("EscapeLabelValue(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if back, err := strconv.Unquote(QuoteLabelValue(tc.in)); err != nil || back != tc.in {
				t.Errorf("%s reads back as %q (%v), want %q", QuoteLabelValue(tc.in), back, err, tc.in)
			}
		})
	}
}

// TestRenderEscapesComponents: hostile component values stay inside their
// label values: outside its strings, each query is what a benign
// component's is.
func TestRenderEscapesComponents(t *testing.T) {
	hostile := PromComponent{Name: `x"}`, Namespace: `app"} or vector(1) #`, Pod: `p"`, Container: "c\n"}
	benign := PromComponent{Name: "x", Namespace: "app", Pod: "p", Container: "c"}
	got, err := render(DefaultProfile(), hostile, DefaultRateInterval)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := render(DefaultProfile(), benign, DefaultRateInterval)
	for i := range got {
		g, err := outsideStrings(got[i].Query)
		if err != nil {
			t.Errorf("%s: %v", got[i].Query, err)
		}
		if w, _ := outsideStrings(want[i].Query); g != w {
			t.Errorf("%s: the values changed the query's shape:\n%s\nwant\n%s", got[i].MetricName, g, w)
		}
	}
}

// outsideStrings is q with the contents of its double-quoted strings
// removed, read as PromQL's lexer does (backslash escapes; no newline in
// a string).
func outsideStrings(q string) (string, error) {
	var b strings.Builder
	in := false
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case in && c == '\\':
			i++
		case in && c == '\n':
			return "", errors.New("newline inside a string")
		case c == '"':
			in = !in
			b.WriteByte(c)
		case !in:
			b.WriteByte(c)
		}
	}
	if in {
		return "", errors.New("unterminated string")
	}
	return b.String(), nil
}

// FuzzEscapeLabelValue: any value, escaped into a label matcher, stays
// one string that reads back as the value.
func FuzzEscapeLabelValue(f *testing.F) {
	for _, s := range []string{"app", `app"} or vector(1) #`, `\`, "\n", `\"`, "\xff", "é\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := `up{namespace="` + EscapeLabelValue(s) + `"}`
		if got, err := outsideStrings(q); err != nil || got != `up{namespace=""}` {
			t.Fatalf("%q escapes to %s: outside its string %q (%v)", s, q, got, err)
		}
		if back, err := strconv.Unquote(QuoteLabelValue(s)); err != nil || back != s {
			t.Fatalf("%q reads back as %q (%v)", s, back, err)
		}
	})
}
