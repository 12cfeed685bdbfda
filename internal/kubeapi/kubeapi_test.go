package kubeapi

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		p    URLPath
		want string
	}{
		{"plain", Path("api", "v1", "namespaces", "default", "configmaps"), "/api/v1/namespaces/default/configmaps"},
		{"slash stays in its segment", Path("api", "v1", "namespaces", "a/b"), "/api/v1/namespaces/a%2Fb"},
		{"question mark cannot start a query", Path("api", "v1", "namespaces", "x?watch=1"), "/api/v1/namespaces/x%3Fwatch=1"},
		{"join", Path("apis", "apps", "v1").Join("namespaces", "n", "deployments"), "/apis/apps/v1/namespaces/n/deployments"},
		{"query encoded", Path("api", "v1", "pods").With("labelSelector", "app=a b"), "/api/v1/pods?labelSelector=app%3Da+b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if err := tc.p.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestPathWithLeavesOriginal(t *testing.T) {
	base := Path("api", "v1", "pods")
	_ = base.With("a", "1")
	if got := base.String(); got != "/api/v1/pods" {
		t.Errorf("With changed its receiver: %q", got)
	}
}

func TestPathValidateRefuses(t *testing.T) {
	for _, p := range []URLPath{Path(), Path("api", "", "x"), Path("api", "v1", ".."), Path(".", "v1")} {
		if err := p.Validate(); err == nil {
			t.Errorf("Validate(%q) = nil, want an error", p)
		}
	}
}

func TestDoRefusesRedirect(t *testing.T) {
	var followed bool
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed = true
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	c := New(srv.URL, &tls.Config{InsecureSkipVerify: true}, "secret-token")
	_, _, err := c.Do(context.Background(), http.MethodGet, Path("api", "v1"), "", nil)
	if err == nil || !strings.Contains(err.Error(), `"/elsewhere"`) {
		t.Errorf("err = %v, want a refusal naming /elsewhere", err)
	}
	if _, err := c.Stream(context.Background(), Path("api", "v1")); err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("Stream err = %v, want a refused redirect", err)
	}
	if followed {
		t.Error("the client followed a redirect")
	}
}

func TestDoSendsTokenAndPath(t *testing.T) {
	var gotPath, gotAuth, gotCT, gotBody string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth, gotCT = r.URL.EscapedPath(), r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	c := New(srv.URL+"/", &tls.Config{InsecureSkipVerify: true}, "tok")
	code, b, err := c.Do(context.Background(), http.MethodPost, Path("api", "v1", "namespaces", "a b"), "application/json", strings.NewReader("{}"))
	if err != nil || code != http.StatusCreated || string(b) != `{"ok":true}` {
		t.Fatalf("Do = %d %q %v", code, b, err)
	}
	if gotPath != "/api/v1/namespaces/a%20b" || gotAuth != "Bearer tok" || gotCT != "application/json" || gotBody != "{}" {
		t.Errorf("server saw path %q auth %q type %q body %q", gotPath, gotAuth, gotCT, gotBody)
	}
}

func TestWithToken(t *testing.T) {
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	admin := New(srv.URL, &tls.Config{InsecureSkipVerify: true}, "admin")
	for _, c := range []*Client{admin.WithToken("alice"), admin} {
		if _, _, err := c.Do(context.Background(), http.MethodGet, Path("api"), "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "Bearer alice,Bearer admin" {
		t.Errorf("tokens sent %q, want alice's then admin's", got)
	}
}

func TestDoRefusesBadPathBeforeSending(t *testing.T) {
	c := New("https://127.0.0.1:1", nil, "")
	_, _, err := c.Do(context.Background(), http.MethodGet, Path("api", "v1", "namespaces", ".."), "", nil)
	if err == nil || !strings.Contains(err.Error(), `".."`) {
		t.Errorf("err = %v, want the bad segment named", err)
	}
}

func TestGetJSON(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/found":
			io.WriteString(w, `{"name":"x"}`)
		case "/broken":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"message":"no"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, &tls.Config{InsecureSkipVerify: true}, "")
	var v struct{ Name string }
	tests := []struct {
		path      string
		found     bool
		wantError bool
	}{{"found", true, false}, {"missing", false, false}, {"broken", false, true}}
	for _, tc := range tests {
		found, err := c.GetJSON(context.Background(), Path(tc.path), &v)
		if found != tc.found || (err != nil) != tc.wantError {
			t.Errorf("GetJSON(%s) = %v, %v; want found %v, error %v", tc.path, found, err, tc.found, tc.wantError)
		}
	}
	if v.Name != "x" {
		t.Errorf("decoded %+v", v)
	}
}

func TestMessage(t *testing.T) {
	if got := Message([]byte(`{"message":"forbidden"}`)); got != "forbidden" {
		t.Errorf("Message = %q", got)
	}
	if got := Message([]byte(strings.Repeat("x", 400))); len(got) != 300 {
		t.Errorf("Message kept %d bytes, want 300", len(got))
	}
}
