//go:build integration

package keycloak

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
)

// keycloakHome is $AUTHBENCH_KEYCLOAK_HOME, or the distribution
// `authbench lab install` unpacked.
func keycloakHome(t *testing.T) string {
	if h := os.Getenv("AUTHBENCH_KEYCLOAK_HOME"); h != "" {
		return h
	}
	kcsh, err := toolcache.ToolPath("keycloak")
	if err != nil {
		t.Fatalf("finding keycloak (or set AUTHBENCH_KEYCLOAK_HOME): %v", err)
	}
	return filepath.Dir(filepath.Dir(kcsh))
}

func TestKeycloakIntegration(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, err := writeSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{
		Home:          keycloakHome(t),
		DataDir:       filepath.Join(dir, "data"),
		HTTPSPort:     freePort(t),
		CertFile:      certFile,
		KeyFile:       keyFile,
		AdminPassword: randomSecret(t),
		ClientSecret:  randomSecret(t),
		Users: []User{
			{Name: "alice", Password: randomSecret(t)},
			{Name: "bob", Password: randomSecret(t)},
		},
		AccessTokenLifespan: 2 * time.Minute,
	}
	if err := Prepare(c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	kc := startKeycloak(ctx, t, c, filepath.Join(dir, "keycloak-1.log"))
	t0 := time.Now()
	if err := Configure(ctx, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("Configure (realm created): %s", time.Since(t0).Round(time.Millisecond))
	hc, err := HTTPClient(c)
	if err != nil {
		t.Fatal(err)
	}
	checkListeners(t, kc.pgid, c.HTTPSPort)
	kc.logRSS(t)

	alice := grant(ctx, t, hc, c, url.Values{"grant_type": {"password"}, "username": {"alice"}, "password": {c.Users[0].Password}})
	service := grant(ctx, t, hc, c, url.Values{"grant_type": {"client_credentials"}})
	keys := realmKeys(ctx, t, hc, c)
	checkToken(t, c, keys, alice, "alice", "alice@authbench.test")
	checkToken(t, c, keys, service, "service-account-authbench", "authbench-service-account@authbench.test")
	bob := grant(ctx, t, hc, c, url.Values{"grant_type": {"password"}, "username": {"bob"}, "password": {c.Users[1].Password}})
	checkToken(t, c, keys, bob, "bob", "bob@authbench.test")

	// RFC 6749 5.2: a bad password is invalid_grant, HTTP 400.
	err = tryGrant(ctx, hc, c, url.Values{"grant_type": {"password"}, "username": {"alice"}, "password": {"wrong"}}, nil)
	if statusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("password grant with a wrong password: %v, want HTTP 400 invalid_grant", err)
	}

	// A second Configure finds the realm up to date and leaves it (and its
	// signing keys) alone.
	t0 = time.Now()
	if err := Configure(ctx, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("Configure (up to date): %s", time.Since(t0).Round(time.Millisecond))
	if again := realmKeys(ctx, t, hc, c); !sameKeys(keys, again) {
		t.Errorf("the second Configure replaced the realm's signing keys")
	}
	kc.stop(t)

	// Restart on the same data: the admin and the realm persist, and the
	// build step does not run again.
	kc = startKeycloak(ctx, t, c, filepath.Join(dir, "keycloak-2.log"))
	if kc.built {
		t.Errorf("keycloak ran its build step again on restart")
	}
	if err := Configure(ctx, c); err != nil {
		t.Fatal(err)
	}
	checkToken(t, c, keys, grant(ctx, t, hc, c, url.Values{"grant_type": {"password"},
		"username": {"alice"}, "password": {c.Users[0].Password}}), "alice", "alice@authbench.test")
	checkListeners(t, kc.pgid, c.HTTPSPort)
	kc.logRSS(t)
	kc.stop(t)
}

// running is a Keycloak started in its own process group.
type running struct {
	cmd    *exec.Cmd
	pgid   int
	exited chan error
	built  bool // the start ran Keycloak's build step
}

func startKeycloak(ctx context.Context, t *testing.T, c Config, logFile string) *running {
	t.Helper()
	path, args, env := c.Command()
	log, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kc := &running{cmd: cmd, pgid: cmd.Process.Pid, exited: make(chan error, 1)}
	go func() { kc.exited <- cmd.Wait() }()
	t.Cleanup(func() { kc.kill() })

	readyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan error, 1)
	go func() { ready <- WaitReady(readyCtx, c, 200*time.Millisecond) }()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%v\n%s", err, tail(logFile))
		}
	case err := <-kc.exited:
		kc.exited <- err
		t.Fatalf("keycloak exited before it was ready: %v\n%s", err, tail(logFile))
	}
	data, _ := os.ReadFile(logFile)
	kc.built = bytes.Contains(data, []byte("Updating the server image"))
	t.Logf("keycloak ready in %s, %.1f CPU-seconds, build step: %v", time.Since(t0).Round(time.Millisecond), kc.cpuSeconds(), kc.built)
	return kc
}

// kill ends the whole group at once; Cleanup's last resort.
func (kc *running) kill() { syscall.Kill(-kc.pgid, syscall.SIGKILL) }

// stop sends SIGTERM to the group, as the supervisor does, and checks that
// no process of the group is left.
func (kc *running) stop(t *testing.T) {
	t.Helper()
	t0 := time.Now()
	if err := syscall.Kill(-kc.pgid, syscall.SIGTERM); err != nil {
		t.Fatalf("signalling keycloak's group: %v", err)
	}
	select {
	case err := <-kc.exited:
		t.Logf("kc.sh exited (%v) %s after SIGTERM", err, time.Since(t0).Round(time.Millisecond))
	case <-time.After(60 * time.Second):
		t.Errorf("keycloak still running 60s after SIGTERM")
		kc.kill()
		<-kc.exited
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(groupPIDs(kc.pgid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := groupPIDs(kc.pgid); len(left) > 0 {
		t.Errorf("processes left in keycloak's group after stop: %v", left)
	}
}

// java is the group's java process.
func (kc *running) java() int {
	for _, pid := range groupPIDs(kc.pgid) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); strings.Contains(filepath.Base(exe), "java") {
			return pid
		}
	}
	return 0
}

// cpuSeconds is the CPU time the group used so far, including children it
// reaped (the build step's java, when kc.sh ran one).
func (kc *running) cpuSeconds() float64 {
	var ticks float64
	for _, pid := range groupPIDs(kc.pgid) {
		f := procStat(pid)
		for _, i := range []int{13, 14, 15, 16} { // utime, stime, cutime, cstime
			if i < len(f) {
				v, _ := strconv.ParseFloat(f[i], 64)
				ticks += v
			}
		}
	}
	return ticks / 100 // USER_HZ is 100 on Linux
}

func (kc *running) logRSS(t *testing.T) {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", kc.java()))
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			t.Logf("keycloak java %s", strings.Join(strings.Fields(line), " "))
		}
	}
}

// procStat returns /proc/PID/stat's fields, the command name counted as one.
func procStat(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return append([]string{s[:strings.IndexByte(s, ' ')], s[:i+1]}, strings.Fields(s[i+1:])...)
}

// groupPIDs lists the live (non-zombie) processes whose process group is pgid.
func groupPIDs(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := procStat(pid)
		if len(f) > 4 && f[4] == strconv.Itoa(pgid) && f[2] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkListeners asserts that the group listens on 127.0.0.1:port over TCP
// and on nothing else, TCP or UDP.
func checkListeners(t *testing.T, pgid, port int) {
	t.Helper()
	out, err := exec.Command("ss", "-H", "-l", "-n", "-p", "-t", "-u").Output()
	if err != nil {
		t.Fatalf("running ss: %v", err)
	}
	pids := groupPIDs(pgid)
	var tcp []string
	for _, line := range strings.Split(string(out), "\n") {
		if !slices.ContainsFunc(pids, func(p int) bool { return strings.Contains(line, fmt.Sprintf("pid=%d,", p)) }) {
			continue
		}
		f := strings.Fields(line)
		local := f[4]
		host, _, _ := strings.Cut(local[:strings.LastIndexByte(local, ':')], "%")
		if host != "127.0.0.1" && host != "[::ffff:127.0.0.1]" {
			t.Errorf("keycloak listens outside 127.0.0.1: %s", line)
		}
		if f[0] != "tcp" {
			t.Errorf("keycloak has a %s socket: %s", f[0], line)
			continue
		}
		tcp = append(tcp, local)
	}
	t.Logf("keycloak listeners: %v", tcp)
	if len(tcp) != 1 || !strings.HasSuffix(tcp[0], fmt.Sprintf(":%d", port)) {
		t.Errorf("keycloak TCP listeners = %v, want only port %d", tcp, port)
	}
}

// grant gets an access token from the lab realm with the client's credentials.
func grant(ctx context.Context, t *testing.T, hc *http.Client, c Config, form url.Values) string {
	t.Helper()
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	t0 := time.Now()
	if err := tryGrant(ctx, hc, c, form, &tok); err != nil {
		t.Fatalf("%s grant: %v", form.Get("grant_type"), err)
	}
	t.Logf("%s grant took %s", form.Get("grant_type"), time.Since(t0).Round(time.Millisecond))
	// expires_in counts from the answer, so it may be a second or two short.
	if want := int(c.AccessTokenLifespan / time.Second); tok.ExpiresIn < want-2 || tok.ExpiresIn > want {
		t.Errorf("%s grant: expires_in = %d, want %d", form.Get("grant_type"), tok.ExpiresIn, want)
	}
	return tok.AccessToken
}

func tryGrant(ctx context.Context, hc *http.Client, c Config, form url.Values, out any) error {
	c = c.WithDefaults()
	form.Set("client_id", c.ClientID)
	form.Set("client_secret", c.ClientSecret)
	return do(ctx, hc, http.MethodPost, TokenURL(c), "", formBody{form}, out)
}

// realmKeys fetches the realm's RS256 verification keys from the jwks_uri
// that discovery names, as oauth2-proxy and kube-apiserver do.
func realmKeys(ctx context.Context, t *testing.T, hc *http.Client, c Config) map[string]*rsa.PublicKey {
	t.Helper()
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := do(ctx, hc, http.MethodGet, IssuerURL(c)+"/.well-known/openid-configuration", "", nil, &disc); err != nil {
		t.Fatal(err)
	}
	if disc.Issuer != IssuerURL(c) || !strings.HasPrefix(disc.JWKSURI, IssuerURL(c)+"/") {
		t.Errorf("discovery: issuer %q, jwks_uri %q; want both under %q", disc.Issuer, disc.JWKSURI, IssuerURL(c))
	}
	var jwks struct {
		Keys []struct{ Kid, Kty, Alg, Use, N, E string }
	}
	if err := do(ctx, hc, http.MethodGet, disc.JWKSURI, "", nil, &jwks); err != nil {
		t.Fatal(err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range jwks.Keys {
		if k.Kty != "RSA" || k.Alg != "RS256" {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("decoding key %s: %v", k.Kid, err)
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	if len(keys) == 0 {
		t.Fatalf("no RS256 key in %s", disc.JWKSURI)
	}
	return keys
}

func sameKeys(a, b map[string]*rsa.PublicKey) bool {
	if len(a) != len(b) {
		return false
	}
	for kid, k := range a {
		if o, ok := b[kid]; !ok || !o.Equal(k) {
			return false
		}
	}
	return true
}

// checkToken verifies the JWT's RS256 signature and the claims oauth2-proxy
// (aud, email, email_verified) and kube-apiserver (iss, aud,
// preferred_username, exp) rely on. Failures never print the token.
func checkToken(t *testing.T, c Config, keys map[string]*rsa.PublicKey, token, username, email string) {
	t.Helper()
	c = c.WithDefaults()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("%s: token has %d parts, want 3", username, len(parts))
	}
	var header struct{ Alg, Kid string }
	var claims struct {
		Iss               string          `json:"iss"`
		Aud               json.RawMessage `json:"aud"`
		Exp, Iat          int64
		PreferredUsername string `json:"preferred_username"`
		Email             string `json:"email"`
		EmailVerified     *bool  `json:"email_verified"`
	}
	for i, dst := range []any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatalf("%s: decoding token part %d: %v", username, i, err)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			t.Fatalf("%s: parsing token part %d: %v", username, i, err)
		}
	}
	key := keys[header.Kid]
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if header.Alg != "RS256" || key == nil || rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig) != nil {
		t.Errorf("%s: token signature (alg %s, kid %s) does not verify with the realm's JWKS", username, header.Alg, header.Kid)
	}
	var aud []string
	if json.Unmarshal(claims.Aud, &aud) != nil {
		var one string
		json.Unmarshal(claims.Aud, &one)
		aud = []string{one}
	}
	lifespan := int64(c.AccessTokenLifespan / time.Second)
	now := time.Now().Unix()
	for _, check := range []struct {
		claim string
		ok    bool
		got   any
	}{
		{"iss", claims.Iss == IssuerURL(c), claims.Iss},
		{"aud", slices.Contains(aud, c.ClientID), aud},
		{"preferred_username", claims.PreferredUsername == username, claims.PreferredUsername},
		{"email", claims.Email == email, claims.Email},
		{"email_verified", claims.EmailVerified != nil && *claims.EmailVerified, claims.EmailVerified},
		{"exp-iat", claims.Exp-claims.Iat == lifespan, claims.Exp - claims.Iat},
		{"iat", claims.Iat > now-120 && claims.Iat <= now+5, claims.Iat},
	} {
		if !check.ok {
			t.Errorf("%s: claim %s = %v", username, check.claim, check.got)
		}
	}
	t.Logf("%s: token claims iss=%s aud=%v preferred_username=%s email=%s email_verified=%v exp-iat=%ds kid=%s",
		username, claims.Iss, aud, claims.PreferredUsername, claims.Email, claims.EmailVerified != nil && *claims.EmailVerified,
		claims.Exp-claims.Iat, header.Kid)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomSecret(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// tail is the end of a log file, for failure messages.
func tail(path string) string {
	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return "last lines of " + path + ":\n" + string(bytes.Join(lines, []byte("\n")))
}
