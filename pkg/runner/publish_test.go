package runner

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/results"
)

// A run whose server cannot be reached is saved and succeeds; the
// failure is a warning. An interrupted run is not published.
func TestPublishAtEndOfRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	tests := []struct {
		name     string
		block    *plan.Publish
		env      string
		cut      int
		wantErr  error
		wantLog  string
		withhold string
	}{
		{"block names a server that is down", &plan.Publish{URL: "http://127.0.0.1:1", Index: "runs"}, "", 0, nil, "warning: publishing the run", ""},
		{"a token in the URL is refused, never quoted", &plan.Publish{URL: "http://127.0.0.1:1/?access_token=s3cret-tok"}, "", 0, nil, "want no query", "s3cret-tok"},
		{"environment names a server that is down", nil, "http://127.0.0.1:1", 0, nil, "warning: publishing the run", ""},
		{"interrupted run", nil, "http://127.0.0.1:1", 2, ErrInterrupted, "not published: the run was interrupted", "warning"},
		{"no server", nil, "", 0, nil, "", "publish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(publish.EnvURL, tt.env)
			p := stubPlan(srv.URL)
			p.Publish = tt.block
			var log bytes.Buffer
			o := Options{Plan: p, Out: t.TempDir(), Log: &log}
			if tt.cut > 0 {
				o.Executor = &stubExecutor{cut: tt.cut}
			}
			out, err := Run(context.Background(), o)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run: %v, want %v", err, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(out.Dir, results.RunFile)); err != nil {
				t.Errorf("run not saved: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(out.Dir, results.RunFile)); strings.Contains(string(b), "s3cret-tok") {
				t.Error("run.json records the publish URL's token")
			}
			if !strings.Contains(log.String(), tt.wantLog) || (tt.withhold != "" && strings.Contains(log.String(), tt.withhold)) {
				t.Errorf("log %q: want %q, not %q", log.String(), tt.wantLog, tt.withhold)
			}
		})
	}
}
