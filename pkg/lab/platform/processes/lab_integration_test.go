//go:build integration

package processes

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/stacks"
)

// The integration tests share one lab with both stacks and the migration
// reports' misconfiguration (oauth2-proxy limited to 50 millicores).
var (
	labDir   string
	labState *lab.State
	labErr   error
	client   *http.Client
)

func TestMain(m *testing.M) {
	// lab.Up starts this test binary as the lab's supervisor.
	ServeIfAsked()
	flag.Parse()
	os.Exit(runWithLab(m))
}

// supervisorArgv runs this test binary (TestMain sees ServeEnv) as supervisor.
func supervisorArgv() []string { return []string{os.Args[0], "-test.run=^$"} }

func runWithLab(m *testing.M) int {
	// A lasting dir keeps Keycloak's database between runs, which saves
	// its schema creation (a minute on 2 cores) on every run but the first.
	dir := os.Getenv("AUTHBENCH_LAB_TEST_DIR")
	if dir == "" {
		dir = filepath.Join(toolcache.CacheDir(), "lab-integration")
	}
	labDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t0 := time.Now()
	_ = lab.Open(dir, Platform{}).Down(ctx, io.Discard) // a lab left by an interrupted earlier run
	labState, labErr = lab.Open(dir, Platform{}).Up(ctx, lab.UpOptions{Out: os.Stderr, Supervisor: supervisorArgv(),
		Config: lab.Config{Limits: []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}}}})
	cancel()
	if labErr == nil {
		fmt.Fprintf(os.Stderr, "lab up in %.1fs\n", time.Since(t0).Seconds())
		client, labErr = newLabClient(labState.CACert)
	}
	code := m.Run()
	// Idempotent: TestDownLeavesNothing normally stopped it already.
	_ = lab.Open(dir, Platform{}).Down(context.Background(), io.Discard)
	return code
}

func needLab(t *testing.T) *lab.State {
	t.Helper()
	testenv.NeedLab(t, labErr)
	return labState
}

func target(t *testing.T, name string) lab.StackTarget {
	t.Helper()
	for _, tg := range needLab(t).Targets {
		if tg.Name == name {
			return tg
		}
	}
	t.Fatalf("no target %s", name)
	return lab.StackTarget{}
}

// staticToken reads a lab token file (2x).
func staticToken(t *testing.T, user string) string {
	t.Helper()
	tok, err := stacks.ReadSecret(stacks.SecretPaths(labDir).TokenFile(user))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var (
	oidcMu     sync.Mutex
	oidcTokens = map[string]string{}
)

// oidcToken gets a user's access token from Keycloak with the password grant (3x).
func oidcToken(t *testing.T, user string) string {
	t.Helper()
	oidcMu.Lock()
	defer oidcMu.Unlock()
	if tok, ok := oidcTokens[user]; ok {
		return tok
	}
	kc, ok := needLab(t).Component(stacks.Keycloak)
	if !ok {
		t.Fatal("no keycloak in the lab")
	}
	sec := stacks.SecretPaths(labDir)
	secret, err := stacks.ReadSecret(sec.ClientSecret)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := stacks.ReadSecret(sec.PasswordFile(user))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"grant_type": {"password"}, "client_id": {stacks.OIDCClientID}, "client_secret": {secret},
		"username": {user}, "password": {pw}, "scope": {"openid"}}
	resp, err := client.PostForm(kc.URL+"/protocol/openid-connect/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error_description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("password grant for %s: status %d, %v %s", user, resp.StatusCode, err, body.Error)
	}
	oidcTokens[user] = body.AccessToken
	return body.AccessToken
}

func userToken(t *testing.T, stack, user string) string {
	if stack != stacks.Stack3x {
		return staticToken(t, user)
	}
	return oidcToken(t, user)
}

func get(t *testing.T, u, token string) (int, string) {
	t.Helper()
	code, body, _ := getDetails(t, u, token)
	return code, body
}

// getDetails also returns the gateway's account of an answer it made
// itself (stacks.GatewayDetailsHeader; "" for the upstream's answers).
func getDetails(t *testing.T, u, token string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get(stacks.GatewayDetailsHeader)
}

func TestAliceGets200ThroughEveryStack(t *testing.T) {
	for _, name := range []string{stacks.Target2x, stacks.Target3x, stacks.Target3xOAuth} {
		tg := target(t, name)
		tok := userToken(t, tg.Stack, stacks.UserAlice)
		for _, rung := range tg.Layers {
			t.Run(name+"/"+rung.Layer, func(t *testing.T) {
				code, body := get(t, rung.URL, tok)
				if code != 200 {
					t.Fatalf("GET %s as alice: %d %s", rung.URL, code, body)
				}
				want := stacks.EchoText
				switch rung.Layer {
				case stacks.OAuth2Proxy:
					want = "Authenticated" // its static://200 upstream
				case stacks.KubeAuthProxyOAuth:
					want = stacks.AuthzOKText
				}
				if !strings.Contains(body, want) {
					t.Errorf("body %q lacks %q", body, want)
				}
			})
		}
	}
}

// The gateway's answers without a good token, as the real stacks give
// them: Envoy's ext_authz passes the ext_authz service's denial back
// (details ext_authz_denied), and a user the service lets through but
// RBAC refuses gets the sidecar's 403 through the route (no details).
func TestNoToken(t *testing.T) {
	tests := []struct {
		name, target string
		want         int
		details      string
	}{
		// kube-rbac-proxy finds no credentials: authentication fails, 401.
		{"2x_gets_401_because_the_oauth_proxy_finds_no_bearer_token", stacks.Target2x, 401, ""},
		// oauth2-proxy has no session and --force-json-errors answers 401
		// instead of a sign-in page; Envoy passes the denial's 401 on.
		{"3x_gets_401_because_oauth2-proxy_as_ext_authz_needs_a_login", stacks.Target3x, 401, stacks.GatewayDetailsAuthzDenied},
		// kube-auth-proxy (kube-rbac-proxy) finds no bearer token: 401.
		{"3x-oauth_gets_401_because_kube-auth-proxy_finds_no_bearer_token", stacks.Target3xOAuth, 401, stacks.GatewayDetailsAuthzDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := target(t, tt.target)
			if code, body, d := getDetails(t, tg.URL, ""); code != tt.want || d != tt.details {
				t.Errorf("GET %s without token: %d %q %s, want %d %q", tg.URL, code, d, body, tt.want, tt.details)
			}
		})
	}
}

func TestBobGets403BecauseHeHasNoRoleBinding(t *testing.T) {
	for _, tc := range []struct{ target, details string }{
		{stacks.Target2x, ""},
		// oauth2-proxy only authenticates: bob's 403 is kube-rbac-proxy's,
		// through the route.
		{stacks.Target3x, ""},
		// kube-auth-proxy's own SubjectAccessReview denies bob: Envoy passes
		// its 403 on as a denial, not an authz error.
		{stacks.Target3xOAuth, stacks.GatewayDetailsAuthzDenied},
	} {
		t.Run(tc.target, func(t *testing.T) {
			tg := target(t, tc.target)
			if code, body, d := getDetails(t, tg.URL, userToken(t, tg.Stack, stacks.UserBob)); code != 403 || d != tc.details {
				t.Errorf("GET %s as bob: %d %q %s, want 403 %q", tg.URL, code, d, body, tc.details)
			}
		})
	}
}

func TestTamperedTokenGets401(t *testing.T) {
	tamper := func(tok string) string {
		last := tok[len(tok)-2]
		repl := byte('A')
		if last == 'A' {
			repl = 'B'
		}
		return tok[:len(tok)-2] + string(repl) + tok[len(tok)-1:]
	}
	tests := []struct {
		name, target, details string
	}{
		{"2x_unknown_static_token_fails_TokenReview", stacks.Target2x, ""},
		{"3x_JWT_with_a_broken_signature_fails_verification", stacks.Target3x, stacks.GatewayDetailsAuthzDenied},
		{"3x-oauth_unknown_token_fails_kube-auth-proxy's_TokenReview", stacks.Target3xOAuth, stacks.GatewayDetailsAuthzDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := target(t, tt.target)
			tok := tamper(userToken(t, tg.Stack, stacks.UserAlice))
			if code, body, d := getDetails(t, tg.URL, tok); code != 401 || d != tt.details {
				t.Errorf("GET %s with a tampered token: %d %q %s, want 401 %q", tg.URL, code, d, body, tt.details)
			}
		})
	}
}

func TestGatewayBehavesLikeEnvoyExtAuthz(t *testing.T) {
	gw := target(t, stacks.Target3x).URL
	base := strings.TrimSuffix(gw, stacks.EchoPath)
	tok := userToken(t, stacks.Stack3x, stacks.UserAlice)
	t.Run("a 202 from the auth service is a denial passed back", func(t *testing.T) {
		// oauth2-proxy's own /oauth2/auth answers 202 for a valid token;
		// Envoy allows only a 200 and passes any other answer back.
		if code, body, d := getDetails(t, base+"/oauth2/auth", tok); code != 202 || d != stacks.GatewayDetailsAuthzDenied || strings.Contains(body, stacks.EchoText) {
			t.Errorf("GET %s/oauth2/auth as alice: %d %q %s, want oauth2-proxy's 202 as a denial", base, code, d, body)
		}
	})
	t.Run("the auth service sees the original method and path without the body", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, base+"/echo/method-check", strings.NewReader("body"))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// alice may only get: kube-rbac-proxy denies the create.
		if resp.StatusCode != 403 {
			t.Errorf("POST as alice: %d, want 403 from kube-rbac-proxy (verb create)", resp.StatusCode)
		}
		logb, err := os.ReadFile(filepath.Join(labDir, "logs", stacks.OAuth2Proxy+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(logb), `POST static://200 "/echo/method-check"`) {
			t.Errorf("oauth2-proxy's log has no POST of /echo/method-check")
		}
	})
}

// auditEvent is the part of an audit event the SAR test reads.
type auditEvent struct {
	Verb      string                    `json:"verb"`
	User      struct{ Username string } `json:"user"`
	ObjectRef struct{ Resource string } `json:"objectRef"`
	Request   struct {
		Spec struct {
			User string `json:"user"`
		} `json:"spec"`
	} `json:"requestObject"`
	Response struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	} `json:"responseObject"`
}

func TestKubeRBACProxyMadeSubjectAccessReviews(t *testing.T) {
	tg := target(t, stacks.Target3x)
	get(t, tg.URL, userToken(t, stacks.Stack3x, stacks.UserAlice))
	get(t, tg.URL, userToken(t, stacks.Stack3x, stacks.UserBob))
	audit := filepath.Join(labDir, "logs", "kube-apiserver-audit.log")
	allowed, denied := map[string]bool{}, map[string]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f, err := os.Open(audit)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e auditEvent
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.ObjectRef.Resource != "subjectaccessreviews" ||
				e.User.Username != stacks.SAKubeRBACProxy {
				continue
			}
			if e.Response.Status.Allowed {
				allowed[e.Request.Spec.User] = true
			} else {
				denied[e.Request.Spec.User] = true
			}
		}
		f.Close()
		if allowed[stacks.UserAlice] && denied[stacks.UserBob] {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Errorf("audit log %s: kube-rbac-proxy's SARs allowed %v, denied %v; want alice allowed and bob denied", audit, allowed, denied)
}

func TestLimitOAuth2ProxyThrottlesUnderLoad(t *testing.T) {
	st := needLab(t)
	c, ok := st.Component(stacks.OAuth2Proxy)
	if !ok || c.Cgroup == "" {
		t.Fatalf("oauth2-proxy has no cgroup: %+v", c)
	}
	if c.Limit != "50m" {
		t.Errorf("recorded limit = %q, want 50m", c.Limit)
	}
	g, err := cgroup.Open(c.Cgroup)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := g.Dir("cpu")
	var quota string
	if g.Version() == cgroup.V2 {
		b, _ := os.ReadFile(filepath.Join(d, "cpu.max"))
		quota = strings.TrimSpace(string(b))
		if quota != "5000 100000" {
			t.Errorf("cpu.max = %q, want \"5000 100000\"", quota)
		}
	} else {
		q, _ := os.ReadFile(filepath.Join(d, "cpu.cfs_quota_us"))
		p, _ := os.ReadFile(filepath.Join(d, "cpu.cfs_period_us"))
		if strings.TrimSpace(string(q)) != "5000" || strings.TrimSpace(string(p)) != "100000" {
			t.Errorf("cfs quota/period = %s/%s, want 5000/100000", strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
		}
	}
	before, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	n := hammer(t, target(t, stacks.Target3x).URL, oidcToken(t, stacks.UserAlice), 16, 3*time.Second)
	after, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests; throttled periods %d -> %d, throttled time %s -> %s",
		n, before.ThrottledPeriods, after.ThrottledPeriods, before.ThrottledTime, after.ThrottledTime)
	if after.ThrottledPeriods <= before.ThrottledPeriods {
		t.Errorf("throttled periods did not rise under load: %d -> %d", before.ThrottledPeriods, after.ThrottledPeriods)
	}
}

// hammer sends GETs from workers for d and returns how many got a 200.
func hammer(t *testing.T, u, token string, workers int, d time.Duration) int64 {
	t.Helper()
	var ok atomic.Int64
	tr := client.Transport.(*http.Transport).Clone()
	tr.DisableKeepAlives = false
	tr.MaxIdleConnsPerHost = workers
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				req, _ := http.NewRequest(http.MethodGet, u, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := c.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return ok.Load()
}

// labPIDs lists every process in the lab's cgroups (children included).
func labPIDs(t *testing.T, st *lab.State) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, c := range st.Components {
		out[c.PID] = c.Name
		if c.Cgroup == "" {
			continue
		}
		g, err := cgroup.Open(c.Cgroup)
		if err != nil {
			continue
		}
		pids, _ := g.PIDs()
		for _, p := range pids {
			out[p] = c.Name
		}
	}
	return out
}

// listeners parses `ss -ltnpH`: local address -> pids.
func listeners(t *testing.T) map[string][]int {
	t.Helper()
	out, err := exec.Command("ss", "-ltnpH").Output()
	if err != nil {
		t.Fatalf("ss -ltnpH: %v", err)
	}
	m := map[string][]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		local := f[3]
		for _, part := range strings.Split(line, "pid=")[1:] {
			end := strings.IndexAny(part, ",)")
			if pid, err := strconv.Atoi(part[:end]); err == nil {
				m[local] = append(m[local], pid)
			}
		}
		if _, ok := m[local]; !ok {
			m[local] = nil
		}
	}
	return m
}

func TestOnlyLoopbackListeners(t *testing.T) {
	st := needLab(t)
	pids := labPIDs(t, st)
	seen := map[int]bool{}
	for addr, ps := range listeners(t) {
		for _, p := range ps {
			name, ours := pids[p]
			if !ours {
				continue
			}
			// Java binds IPv4 through an IPv6 socket: [::ffff:127.0.0.1] is
			// still only the stacks.Loopback address.
			if !strings.HasPrefix(addr, stacks.Loopback+":") && !strings.HasPrefix(addr, "[::ffff:"+stacks.Loopback+"]:") {
				t.Errorf("%s (pid %d) listens on %s, not on %s", name, p, addr, stacks.Loopback)
			}
			port, _ := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
			seen[port] = true
		}
	}
	for name, port := range st.Ports {
		if !seen[port] {
			t.Errorf("port %s=%d: no lab process listens on it", name, port)
		}
	}
}

func TestStatusAndScenario(t *testing.T) {
	needLab(t)
	st, err := lab.Open(labDir, Platform{}).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != lab.PhaseReady {
		t.Errorf("phase = %s", st.Phase)
	}
	for _, c := range st.Components {
		if c.Status != lab.StatusRunning || c.PID == 0 || c.Version == "" || c.URL == "" {
			t.Errorf("component %+v", c)
		}
	}
	var sb strings.Builder
	if err := lab.WriteStatus(&sb, st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"envoy 1.40", "ext_authz (the 3x gateways): timeout 5s, failure mode deny", "kube-rbac-proxy",
		"openshift/oauth-proxy", "kube-auth-proxy", "50m", stacks.GatewayDetailsHeader} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, sb.String())
		}
	}
	b, err := lab.Open(labDir, Platform{}).Scenario(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{staticToken(t, stacks.UserAlice), mustSecret(t, stacks.SecretPaths(labDir).ClientSecret),
		mustSecret(t, stacks.SecretPaths(labDir).PasswordFile(stacks.UserAlice))} {
		if strings.Contains(string(b), secret) {
			t.Error("scenario holds a secret value")
		}
	}
	var sc struct {
		Lab     string `yaml:"lab"`
		Targets []struct {
			Token *auth.Spec `yaml:"token"`
			Rungs []lab.Rung `yaml:"rungs"`
		} `yaml:"targets"`
	}
	if err := yaml.Unmarshal(b, &sc); err != nil {
		t.Fatalf("scenario YAML: %v\n%s", err, b)
	}
	if sc.Lab != labDir {
		t.Errorf("scenario names lab %q, want %q", sc.Lab, labDir)
	}
	if len(sc.Targets) != 3 || sc.Targets[0].Token.File == "" || sc.Targets[1].Token.OIDC == nil ||
		sc.Targets[1].Token.OIDC.PasswordFile == "" || len(sc.Targets[1].Rungs) != 4 ||
		sc.Targets[2].Token.File == "" || len(sc.Targets[2].Rungs) != 4 {
		t.Errorf("scenario targets: %+v", sc.Targets)
	}
	rec, err := lab.Open(labDir, Platform{}).Record(context.Background())
	if err != nil || len(rec.Components) != len(st.Components) {
		t.Errorf("Record = %+v, %v", rec, err)
	}
}

func mustSecret(t *testing.T, f string) string {
	s, err := stacks.ReadSecret(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSecondUpSaysAlreadyRunning(t *testing.T) {
	needLab(t)
	_, err := lab.Open(labDir, Platform{}).Up(context.Background(), lab.UpOptions{Supervisor: supervisorArgv()})
	if !errors.Is(err, lab.ErrAlreadyRunning) {
		t.Errorf("second lab up: %v, want lab.ErrAlreadyRunning", err)
	}
}

func TestPortInUseIsDetected(t *testing.T) {
	st := needLab(t)
	dir := t.TempDir()
	busy := st.Ports[stacks.HAProxy]
	_, err := lab.Open(dir, Platform{}).Up(context.Background(), lab.UpOptions{Supervisor: supervisorArgv(),
		Config: lab.Config{Stacks: []string{stacks.Stack2x}, Ports: map[string]int{stacks.HAProxy: busy}}})
	if !errors.Is(err, ports.ErrInUse) && (err == nil || !strings.Contains(err.Error(), "in use")) {
		t.Errorf("lab up with haproxy on busy port %d: %v, want a port-in-use error", busy, err)
	}
	_ = lab.Open(dir, Platform{}).Down(context.Background(), io.Discard)
}

func TestComponentDyingAtStartFailsUp(t *testing.T) {
	needLab(t)
	dir := t.TempDir()
	// 16 MiB is far below what kube-apiserver needs: the kernel kills it.
	_, err := lab.Open(dir, Platform{}).Up(context.Background(), lab.UpOptions{Supervisor: supervisorArgv(),
		Config: lab.Config{Stacks: []string{stacks.Stack2x}, Limits: []lab.Limit{{Component: stacks.APIServer, MemoryBytes: 16 << 20}}}})
	if err == nil {
		_ = lab.Open(dir, Platform{}).Down(context.Background(), io.Discard)
		t.Fatal("lab up succeeded with kube-apiserver limited to 16Mi")
	}
	for _, want := range []string{stacks.APIServer, "at start", "kube-apiserver.log", "  | "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if lock.Alive(dir) {
		t.Error("supervisor still runs after a failed start")
	}
	s, _ := lab.ReadState(dir)
	for _, c := range s.Components {
		if lock.ProcessAlive(c.PID) {
			t.Errorf("%s (pid %d) survived the failed start", c.Name, c.PID)
		}
	}
}

func TestInterruptedUpStopsEverything(t *testing.T) {
	needLab(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupt once the first component runs, as Ctrl-C mid-start would.
	go func() {
		defer cancel()
		for range 600 {
			if s, err := lab.ReadState(dir); err == nil {
				for _, c := range s.Components {
					if c.Status == lab.StatusRunning {
						return
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	_, err := lab.Open(dir, Platform{}).Up(ctx, lab.UpOptions{Supervisor: supervisorArgv(), Config: lab.Config{Stacks: []string{stacks.Stack2x}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted lab up: %v, want context.Canceled", err)
	}
	s, err := lab.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Components {
		if lock.ProcessAlive(c.PID) {
			t.Errorf("%s (pid %d) survived the interrupt", c.Name, c.PID)
		}
	}
	if lock.Alive(dir) {
		t.Error("supervisor survived the interrupt")
	}
}

// TestDownLeavesNothing must stay the last test: it stops the shared lab.
func TestDownLeavesNothing(t *testing.T) {
	st := needLab(t)
	pids := labPIDs(t, st)
	if err := lab.Open(labDir, Platform{}).Down(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	for p, name := range pids {
		if lock.ProcessAlive(p) {
			t.Errorf("%s (pid %d) still runs after lab down", name, p)
		}
	}
	if lock.ProcessAlive(st.Supervisor) {
		t.Errorf("supervisor %d still runs", st.Supervisor)
	}
	open := listeners(t)
	for name, port := range st.Ports {
		for _, addr := range []string{stacks.Loopback + ":" + strconv.Itoa(port), "[::ffff:" + stacks.Loopback + "]:" + strconv.Itoa(port)} {
			if _, ok := open[addr]; ok {
				t.Errorf("port %s=%d still listened on after lab down (%s)", name, port, addr)
			}
		}
	}
	for _, c := range st.Components {
		if c.Cgroup == "" {
			continue
		}
		if g, err := cgroup.Open(c.Cgroup); err == nil {
			if pids, _ := g.PIDs(); len(pids) > 0 {
				t.Errorf("cgroup of %s still holds %v", c.Name, pids)
			}
			t.Errorf("cgroup of %s (%s) still exists after lab down", c.Name, c.Cgroup)
		}
	}
	// The shared parent goes with the last lab, unless another lab of the
	// host (a concurrent test's) still uses it.
	if g, err := cgroup.Open(cgroupRoot); err == nil {
		if other, _ := g.PIDs(); len(other) == 0 {
			t.Errorf("the labs' parent cgroup %q is left behind, empty", cgroupRoot)
		}
	}
	after, err := lab.Open(labDir, Platform{}).Status(context.Background())
	if err != nil || after.Phase != lab.PhaseStopped {
		t.Errorf("status after down: %+v, %v", after, err)
	}
}
