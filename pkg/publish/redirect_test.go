package publish

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPublishRefusesRedirects: an OpenSearch that redirects to another
// port fails the publish with an error naming where it pointed, and the
// other port receives nothing (no Basic header, no document).
func TestPublishRefusesRedirects(t *testing.T) {
	const pass = "S3CRET-os-5e2"
	var mu sync.Mutex
	var seen []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"errors":false,"items":[]}`))
	}))
	defer elsewhere.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	dir := fixtureRun(t, t.TempDir(), "nightly", day0, 20, "api")
	cfg := Config{URL: first.URL, User: "admin", PasswordFile: writePassword(t, pass)}
	_, err := Publish(t.Context(), cfg, dir)
	if err == nil || !strings.Contains(err.Error(), "refused a redirect (status 307) to "+elsewhere.URL+"/") {
		t.Errorf("Publish() error = %v, want the redirect to %s refused", err, elsewhere.URL)
	}
	if len(seen) != 0 {
		t.Errorf("the redirect target received %q", seen)
	}
}

// TestPublishScrubsEchoedCredentials: a refusal that echoes the Basic
// header or the password is quoted without them.
func TestPublishScrubsEchoedCredentials(t *testing.T) {
	const pass = "S3CRET-os-77b"
	basic := base64.StdEncoding.EncodeToString([]byte("admin:" + pass))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"type":"x","reason":"bad header ` + r.Header.Get("Authorization") + ` for ` + pass + ` / ` + basic + `"}}`))
	}))
	defer srv.Close()
	dir := fixtureRun(t, t.TempDir(), "nightly", day0, 20, "api")
	_, err := Publish(t.Context(), Config{URL: srv.URL, User: "admin", PasswordFile: writePassword(t, pass)}, dir)
	if err == nil || !strings.Contains(err.Error(), "bad header") {
		t.Fatalf("Publish() error = %v, want the server's reason", err)
	}
	if strings.Contains(err.Error(), pass) || strings.Contains(err.Error(), basic) {
		t.Errorf("error %q echoes the credentials", err)
	}
}

func writePassword(t *testing.T, pass string) string {
	p := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(p, []byte(pass), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDocumentsRedactOldRun: a run.json written before probe errors and
// Server headers were redacted is published without their secrets.
func TestDocumentsRedactOldRun(t *testing.T) {
	dir := fixtureRun(t, t.TempDir(), "old", day0, 20, "api")
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	raw := strings.Replace(string(b), `"server": "nginx"`,
		`"server": "gw Bearer S3CRETS3CRET", "error": "Get \"http://127.0.0.1:1/x?access_token=S3CRET-q\": refused"`, 1)
	if raw == string(b) {
		t.Fatal("fixture has no server field to replace")
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	docs, err := Documents(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		e := d.Environment
		if strings.Contains(e.BackendServer+e.BackendError, "S3CRET") || !strings.Contains(e.BackendError, "access_token=REDACTED") {
			t.Errorf("document environment %+v: want the secrets redacted", e)
		}
	}
}
