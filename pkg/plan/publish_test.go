package plan

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/auth"
)

// TestValidatePublish: the publish block's rules are the plan's, in its
// one Validate, naming the key and never quoting a token.
func TestValidatePublish(t *testing.T) {
	tests := []struct {
		name     string
		pub      Publish
		want     string
		withhold string
	}{
		{"fine", Publish{URL: "https://127.0.0.1:9200", Index: "runs", User: "u", PasswordFile: "/p"}, "", ""},
		{"not a server", Publish{URL: "127.0.0.1:9200"}, "publish.url", ""},
		{"a user in the URL", Publish{URL: "https://admin@127.0.0.1:9200"}, "names a user", ""},
		{"a token in the query", Publish{URL: "https://127.0.0.1:9200/?access_token=s3cret"}, "want no query", "s3cret"},
		{"an index in capitals", Publish{Index: "Runs"}, "publish.index", ""},
		{"a password file without a user", Publish{PasswordFile: "/p"}, "publish.password_file", ""},
		{"a user and a token", Publish{User: "u", Token: &auth.Spec{Env: "T"}}, "not both", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{Targets: []Target{{URL: "http://127.0.0.1:1/"}}, Publish: &tt.pub}
			err := p.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate: %v, want %q", err, tt.want)
			case tt.withhold != "" && strings.Contains(err.Error(), tt.withhold):
				t.Errorf("Validate quotes %q: %v", tt.withhold, err)
			}
		})
	}
}
