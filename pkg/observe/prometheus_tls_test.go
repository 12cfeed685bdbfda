package observe

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// TestPrometheusTokenAndCA queries a TLS server that demands a bearer
// token, as OpenShift's Thanos querier does: with its CA and the token the
// query succeeds, the token is re-read at every query (a rotated file is
// picked up), and without either the error says what is missing.
func TestPrometheusTokenAndCA(t *testing.T) {
	var mu sync.Mutex
	valid := "tok-one"
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		seen = append(seen, got)
		if got != valid {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	tokFile := filepath.Join(dir, "token")
	os.WriteFile(tokFile, []byte(valid+"\n"), 0o600)
	comps := []plan.Component{{Name: "c", Namespace: "ns", Pod: "p-.*", Container: "c"}}
	query := func(p *plan.Prometheus) error {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := NewPrometheusFromPlan(ctx, p, comps)
		if err != nil {
			return err
		}
		_, err = s.query(ctx, "up", time.Now().Add(-time.Minute), time.Now(), time.Second)
		return err
	}
	for _, tc := range []struct {
		name    string
		p       plan.Prometheus
		wantErr string
	}{
		{"token and CA", plan.Prometheus{URL: srv.URL, CACert: ca, Token: &auth.Spec{File: tokFile}}, ""},
		{"no CA: TLS verified by default", plan.Prometheus{URL: srv.URL, Token: &auth.Spec{File: tokFile}}, "certificate"},
		{"insecure instead of the CA", plan.Prometheus{URL: srv.URL, Insecure: true, Token: &auth.Spec{File: tokFile}}, ""},
		{"no token", plan.Prometheus{URL: srv.URL, CACert: ca}, "HTTP 401: it needs a bearer token"},
		{"not a CA file", plan.Prometheus{URL: srv.URL, CACert: tokFile}, "no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := query(&tc.p)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), valid) {
				t.Errorf("the error holds the token: %v", err)
			}
		})
	}

	t.Run("rotated token file", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := NewPrometheusFromPlan(ctx, &plan.Prometheus{URL: srv.URL, CACert: ca, Token: &auth.Spec{File: tokFile}}, comps)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.query(ctx, "up", time.Now().Add(-time.Minute), time.Now(), time.Second); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		valid = "tok-two"
		mu.Unlock()
		os.WriteFile(tokFile, []byte("tok-two\n"), 0o600)
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := s.query(ctx, "up", time.Now().Add(-time.Minute), time.Now(), time.Second)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the rotated token was never sent: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if last := seen[len(seen)-1]; last != "tok-two" {
			t.Errorf("last query sent %q, want the rotated token", last)
		}
	})
}
