package standin

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/stacks"
)

// fakeAPI answers TokenReviews from a token table and SubjectAccessReviews
// from an allow list, counting both.
type fakeAPI struct {
	users   map[string]string // token -> user
	allowed map[string]bool   // user -> may get services/proxy
	tr, sar atomic.Int64
	mu      sync.Mutex
	lastSAR map[string]any
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Spec map[string]any `json:"spec"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	w.WriteHeader(http.StatusCreated)
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		f.tr.Add(1)
		u, ok := f.users[in.Spec["token"].(string)]
		_ = json.NewEncoder(w).Encode(map[string]any{"status": map[string]any{"authenticated": ok,
			"user": map[string]any{"username": u, "groups": []string{"system:authenticated"}}}})
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		f.sar.Add(1)
		f.mu.Lock()
		f.lastSAR = in.Spec
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"status": map[string]any{"allowed": f.allowed[in.Spec["user"].(string)]}})
	}
}

// lab is a stand-in of mode over a fake API server, in front of an
// upstream that answers with the identity headers it received.
type lab struct {
	api *fakeAPI
	url string
}

func newLab(t *testing.T, mode string, qps float64, cache time.Duration) *lab {
	t.Helper()
	f := &fakeAPI{users: map[string]string{"tok-alice": "alice", "tok-bob": "bob"}, allowed: map[string]bool{"alice": true}}
	apiSrv := httptest.NewTLSServer(f)
	t.Cleanup(apiSrv.Close)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "upstream user="+r.Header.Get("X-Forwarded-User")+" groups="+r.Header.Get("X-Forwarded-Groups"))
	}))
	t.Cleanup(up.Close)
	pool := x509.NewCertPool()
	pool.AddCert(apiSrv.Certificate())
	c := Config{Mode: mode, Listen: "127.0.0.1:1", CertFile: "unused", KeyFile: "unused", Upstream: up.URL + "/",
		QPS: qps, TokenReviewCache: cache}
	if mode == stacks.ModeOAuthProxy {
		c.Resource = &Resource{Namespace: "authbench", Verb: "get", Resource: "services", Subresource: "proxy", Name: "echo"}
	}
	s, err := New(c, kubeapi.New(apiSrv.URL, &tls.Config{RootCAs: pool}, "proxy-token"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &lab{api: f, url: srv.URL}
}

func (l *lab) get(t *testing.T, auth string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, l.url+"/echo", nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestStatusesAndCalls(t *testing.T) {
	for _, tc := range []struct {
		mode, auth string
		code       int
		body       string
		tr, sar    int64 // calls for two requests
	}{
		{stacks.ModeOAuthProxy, "Bearer tok-alice", 200, "upstream user=alice", 1, 1},
		{stacks.ModeOAuthProxy, "Bearer tok-bob", 403, "Log in", 1, 1},
		{stacks.ModeOAuthProxy, "", 403, "Log in", 0, 0},
		{stacks.ModeOAuthProxy, "Bearer tampered", 403, "Log in", 2, 0},
		{stacks.ModeKubeAuthProxy, "Bearer tok-alice", 200, "groups=system:authenticated", 2, 0},
		{stacks.ModeKubeAuthProxy, "Bearer tok-bob", 200, "upstream user=bob", 2, 0},
		{stacks.ModeKubeAuthProxy, "", 403, "403 Forbidden", 0, 0},
		{stacks.ModeKubeAuthProxy, "Bearer tampered", 403, "403 Forbidden", 2, 0},
	} {
		t.Run(tc.mode+"/"+tc.auth, func(t *testing.T) {
			l := newLab(t, tc.mode, 0, 0)
			for range 2 {
				code, body := l.get(t, tc.auth)
				if code != tc.code || !strings.Contains(body, tc.body) {
					t.Fatalf("got %d %q, want %d with %q", code, body, tc.code, tc.body)
				}
			}
			if got := l.api.tr.Load(); got != tc.tr {
				t.Errorf("TokenReviews for 2 requests: %d, want %d", got, tc.tr)
			}
			if got := l.api.sar.Load(); got != tc.sar {
				t.Errorf("SubjectAccessReviews for 2 requests: %d, want %d", got, tc.sar)
			}
		})
	}
}

func TestSARAsksTheDelegateVerb(t *testing.T) {
	l := newLab(t, stacks.ModeOAuthProxy, 0, 0)
	if code, _ := l.get(t, "Bearer tok-alice"); code != 200 {
		t.Fatalf("alice: %d", code)
	}
	ra, _ := l.api.lastSAR["resourceAttributes"].(map[string]any)
	if ra["verb"] != "get" || ra["resource"] != "services" || ra["subresource"] != "proxy" || ra["name"] != "echo" || l.api.lastSAR["user"] != "alice" {
		t.Errorf("SAR spec %v", l.api.lastSAR)
	}
}

func TestClientIdentityHeadersDropped(t *testing.T) {
	l := newLab(t, stacks.ModeKubeAuthProxy, 0, 0)
	_, body := l.get(t, "Bearer tok-bob", "X-Forwarded-User", "admin")
	if !strings.Contains(body, "user=bob") {
		t.Errorf("upstream saw %q, want the reviewed user bob", body)
	}
}

func TestTokenReviewCacheWhatIf(t *testing.T) {
	l := newLab(t, stacks.ModeKubeAuthProxy, 0, time.Minute)
	for range 3 {
		if code, _ := l.get(t, "Bearer tok-alice"); code != 200 {
			t.Fatalf("alice: %d", code)
		}
	}
	if got := l.api.tr.Load(); got != 1 {
		t.Errorf("TokenReviews with a 1m cache: %d, want 1", got)
	}
}

func TestDenyCachedFiveSeconds(t *testing.T) {
	c := newCache(func(allowed bool) time.Duration {
		return map[bool]time.Duration{true: time.Hour, false: 30 * time.Millisecond}[allowed]
	})
	calls := 0
	fetch := func() (bool, error) { calls++; return false, nil }
	_, _ = c.get("bob", fetch)
	_, _ = c.get("bob", fetch)
	if calls != 1 {
		t.Fatalf("within the deny TTL: %d calls, want 1", calls)
	}
	time.Sleep(40 * time.Millisecond)
	_, _ = c.get("bob", fetch)
	if calls != 2 {
		t.Errorf("after the deny TTL: %d calls, want 2", calls)
	}
}

func TestCacheCoalescesConcurrentMisses(t *testing.T) {
	c := newCache(func(int) time.Duration { return time.Minute })
	var calls atomic.Int64
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = c.get("k", func() (int, error) { calls.Add(1); <-release; return 1, nil })
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("8 concurrent misses made %d calls, want 1", calls.Load())
	}
}

func TestLimiterBucket(t *testing.T) {
	for _, tc := range []struct {
		qps   float64
		burst int
		calls int
		// wantLast is the wait of the last call, all made at one instant.
		wantLast time.Duration
	}{
		{5, 10, 10, 0},
		{5, 10, 11, 200 * time.Millisecond},
		{5, 10, 20, 2 * time.Second},
		{200, 400, 401, 5 * time.Millisecond},
	} {
		l := newLimiter(tc.qps, tc.burst)
		now := l.last
		var d time.Duration
		for range tc.calls {
			d = l.reserve(now)
		}
		if diff := d - tc.wantLast; diff < -time.Millisecond || diff > time.Millisecond {
			t.Errorf("%v QPS burst %d, %d calls at once: last waits %v, want %v", tc.qps, tc.burst, tc.calls, d, tc.wantLast)
		}
	}
	if newLimiter(0, 0) != nil {
		t.Error("0 QPS should be no limiter")
	}
}

func TestRateLimitCapsUncachedReviews(t *testing.T) {
	// 20 QPS, burst 40 (the what-if's burst): 60 requests at once take
	// about (60-40)/20 = 1 s; the real 5 QPS would take 10 s.
	l := newLab(t, stacks.ModeKubeAuthProxy, 20, 0)
	start := time.Now()
	var wg sync.WaitGroup
	for range 60 {
		wg.Add(1)
		go func() { defer wg.Done(); l.get(t, "Bearer tok-alice") }()
	}
	wg.Wait()
	if el := time.Since(start); el < 800*time.Millisecond || el > 5*time.Second {
		t.Errorf("60 uncached requests at 20 QPS burst 40 took %v, want about 1 s", el)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Mode: stacks.ModeKubeAuthProxy, Listen: "127.0.0.1:8443", CertFile: "c", KeyFile: "k", Upstream: "http://127.0.0.1:5678/"}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"ok", func(*Config) {}, ""},
		{"mode", func(c *Config) { c.Mode = "nginx" }, "stand-in mode"},
		{"listen all", func(c *Config) { c.Listen = ":8443" }, "want 127.0.0.1"},
		{"listen any outside a pod", func(c *Config) { c.Listen = "0.0.0.0:8443" }, "want 127.0.0.1"},
		{"listen any in a pod", func(c *Config) { c.Listen, c.PodNetwork = "0.0.0.0:8443", true }, ""},
		{"upstream remote", func(c *Config) { c.Upstream = "http://10.0.0.1/" }, "upstream"},
		{"no cert", func(c *Config) { c.CertFile = "" }, "cert_file"},
		{"oauth-proxy without resource", func(c *Config) { c.Mode = stacks.ModeOAuthProxy }, "resource"},
		{"negative qps", func(c *Config) { c.QPS = -1 }, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	c := Config{Mode: stacks.ModeKubeAuthProxy, Listen: "127.0.0.1:8443", CertFile: "c", KeyFile: "k",
		Upstream: "http://127.0.0.1:5678/", QPS: 50, TokenReviewCache: time.Minute}
	s, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s)
	if err != nil || got.QPS != 50 || got.TokenReviewCache != time.Minute {
		t.Errorf("Decode(Encode) = %+v, %v", got, err)
	}
	if _, err := Decode("{"); err == nil {
		t.Error("Decode accepted bad JSON")
	}
}

func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  x ", "Basic Zm9v", "", "Bearer"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, ok := bearer(h)
		if ok && (tok == "" || strings.TrimSpace(tok) != tok) {
			t.Errorf("bearer(%q) = %q", h, tok)
		}
	})
}
