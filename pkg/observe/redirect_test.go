package observe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fixedToken is a token source for tests.
type fixedToken string

func (f fixedToken) Token(context.Context) (string, error) { return string(f), nil }
func (f fixedToken) Kind() string                          { return "static" }

// TestPrometheusRefusesRedirects: a Prometheus that redirects to another
// port gets no bearer token there, and the error names where it pointed.
func TestPrometheusRefusesRedirects(t *testing.T) {
	var hits atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
	}))
	defer elsewhere.Close()
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer prom.Close()
	s, err := NewPrometheus(PromOptions{URL: prom.URL, Token: fixedToken("S3CRET-prom")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.query(t.Context(), "up", time.Now().Add(-time.Minute), time.Now(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "refused a redirect (status 307) to "+elsewhere.URL+"/api/v1/query_range") {
		t.Errorf("query error = %v, want the redirect refused", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the redirect target was reached %d times", hits.Load())
	}
}
