package httpclient

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestNoRedirect: a 307 to a second listener is an error naming the
// target (redacted), and the second listener receives nothing.
func TestNoRedirect(t *testing.T) {
	var hits atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		t.Errorf("redirect target received %s %s %q (Authorization %q)", r.Method, r.URL, body, r.Header.Get("Authorization"))
	}))
	defer elsewhere.Close()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere.URL+"/token?access_token=S3CRET", code)
			}))
			defer first.Close()
			req, _ := http.NewRequest(http.MethodPost, first.URL, strings.NewReader("password=S3CRET"))
			req.SetBasicAuth("admin", "S3CRET")
			resp, err := New(nil, 0).Do(req)
			if resp != nil {
				resp.Body.Close()
			}
			var re *RedirectError
			if !errors.As(err, &re) || re.Status != code {
				t.Fatalf("Do() error = %v, want a RedirectError with status %d", err, code)
			}
			if !strings.Contains(err.Error(), elsewhere.URL+"/token") || strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("error %q: want the target named, redacted", err)
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("the redirect target was reached %d times", hits.Load())
	}
}
