package toolcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCache fills a cache directory with every Go tool and Keycloak as a
// finished install would leave them: an executable and a matching stamp.
func fakeCache(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	for _, tool := range Tools() {
		fakeExecutable(t, binPath(cache, tool.Name, tool.Version))
		if err := linkAliases(binPath(cache, tool.Name, tool.Version), tool.Aliases); err != nil {
			t.Fatal(err)
		}
		inputs, err := inputsHash(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeStamp(toolDir(cache, tool.Name, tool.Version), Stamp{Inputs: inputs}); err != nil {
			t.Fatal(err)
		}
	}
	fakeExecutable(t, keycloakScript(cache))
	if err := writeStamp(toolDir(cache, keycloakName, KeycloakVersion), Stamp{Inputs: keycloakInputs()}); err != nil {
		t.Fatal(err)
	}
	return cache
}

func cachedSteps() []string {
	var names []string
	for _, tool := range Tools() {
		names = append(names, tool.Name)
	}
	return append(names, keycloakName)
}

func TestInstallSkipsCachedTools(t *testing.T) {
	cache := fakeCache(t)
	var out bytes.Buffer
	rep, err := Install(context.Background(), Options{CacheDir: cache, Only: cachedSteps(), Out: &out})
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, out.String())
	}
	if len(rep.Steps) != len(cachedSteps()) {
		t.Fatalf("got %d steps, want %d", len(rep.Steps), len(cachedSteps()))
	}
	for i, s := range rep.Steps {
		if s.Status != StatusCached {
			t.Errorf("%s: status %s, want cached", s.Name, s.Status)
		}
		line := fmt.Sprintf("[%d/%d] %s %s: cached (%s)", i+1, len(rep.Steps), s.Name, s.Version, s.Path)
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	if !regexp.MustCompile(`lab install: done in \S+`).MatchString(out.String()) {
		t.Errorf("output lacks the total time:\n%s", out.String())
	}
}

func TestProbeSeesRecipeChange(t *testing.T) {
	cache := fakeCache(t)
	tool, _ := lookupTool("oauth2-proxy")
	if err := writeStamp(toolDir(cache, tool.Name, tool.Version), Stamp{Inputs: "old recipe"}); err != nil {
		t.Fatal(err)
	}
	in := &installer{cache: cache, opts: withDefaults(Options{CacheDir: cache})}
	_, done, why, err := goToolStep(in, tool).probe(context.Background())
	if err != nil || done || why != "recipe changed" {
		t.Errorf("probe = done %v, why %q, err %v; want a rebuild for a changed recipe", done, why, err)
	}
}

func TestSelectSteps(t *testing.T) {
	all := allSteps(&installer{})
	tests := []struct {
		name    string
		opts    Options
		want    []string
		wantErr string
	}{
		{"default leaves out chromium", Options{}, []string{"apt", "kube-apt", "http-echo", "toxiproxy-server", "oauth2-proxy", "hyperkube", "kube-rbac-proxy", "keycloak", "envoy", "haproxy"}, ""},
		{"optional adds chromium and the registry", Options{Optional: true}, []string{"apt", "chromium", "kube-apt", "http-echo", "toxiproxy-server", "oauth2-proxy", "hyperkube", "kube-rbac-proxy", "registry", "keycloak", "envoy", "haproxy", "opensearch", "elasticsearch"}, ""},
		{"only keeps canonical order", Options{Only: []string{"keycloak", "http-echo"}}, []string{"http-echo", "keycloak"}, ""},
		{"only may name an optional step", Options{Only: []string{"chromium"}}, []string{"chromium"}, ""},
		{"unknown step", Options{Only: []string{"traefik"}}, nil, `unknown install step "traefik"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectSteps(all, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			var names []string
			for _, s := range got {
				names = append(names, s.name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("steps = %v, want %v", names, tc.want)
			}
		})
	}
}

func TestStepNames(t *testing.T) {
	names := StepNames()
	for _, want := range []string{"apt", "chromium", "hyperkube", "keycloak"} {
		if !slices.Contains(names, want) {
			t.Errorf("StepNames() = %v, lacks %s", names, want)
		}
	}
}

// fakeStep is a step that is never done and whose install does what it is told.
func fakeStep(install func(context.Context, stepLog, io.Writer) (string, error)) step {
	return step{
		name: "fake", version: "v9", verb: "building",
		probe: func(context.Context) (string, bool, string, error) {
			return "", false, "not installed", nil
		},
		install: install,
	}
}

func TestFailedStepNamesStepLogAndFix(t *testing.T) {
	cache := t.TempDir()
	var out bytes.Buffer
	in := &installer{cache: cache, opts: withDefaults(Options{CacheDir: cache, Out: &out})}
	p := &progress{w: &out, total: 1}
	s := fakeStep(func(_ context.Context, _ stepLog, log io.Writer) (string, error) {
		fmt.Fprintln(log, "compile: undefined: foo")
		return "", errors.New("go build: exit status 1")
	})
	r := in.run(context.Background(), stepLog{p: p, index: 1, label: s.label()}, s, "not installed")
	if r.Status != StatusFailed || r.Err == nil {
		t.Fatalf("report %+v, want failed", r)
	}
	for _, want := range []string{"step fake v9 failed", "exit status 1", "undefined: foo", "--only fake"} {
		if !strings.Contains(r.Err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, r.Err)
		}
	}
	if !strings.Contains(out.String(), "[1/1] fake v9: FAILED after") {
		t.Errorf("progress lacks the failure line:\n%s", out.String())
	}
}

func TestInstalledStepPrintsDuration(t *testing.T) {
	cache := t.TempDir()
	var out bytes.Buffer
	in := &installer{cache: cache, opts: withDefaults(Options{CacheDir: cache, Out: &out})}
	p := &progress{w: &out, total: 2}
	s := fakeStep(func(context.Context, stepLog, io.Writer) (string, error) { return "/x/bin/fake", nil })
	r := in.run(context.Background(), stepLog{p: p, index: 2, label: s.label()}, s, "not installed")
	if r.Status != StatusInstalled || r.Path != "/x/bin/fake" {
		t.Fatalf("report %+v, want installed at /x/bin/fake", r)
	}
	for _, re := range []string{`\[2/2\] fake v9: not installed; building… \(log \S+fake-v9.log\)`,
		`\[2/2\] fake v9: done in \S+ \(/x/bin/fake\)`} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output does not match %s:\n%s", re, out.String())
		}
	}
}

func TestHeartbeat(t *testing.T) {
	var buf syncBuffer
	p := &progress{w: &buf, total: 7, every: 5 * time.Millisecond}
	sl, stop := stepLog{p: p, index: 6, label: "kube-apiserver v1.32.2"}.heartbeat("resolving modules", time.Now())
	sl.setDoing("building (go build)")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "[6/7] kube-apiserver v1.32.2: still building (go build) (") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if !strings.Contains(buf.String(), "still building") {
		t.Fatalf("no heartbeat line: %q", buf.String())
	}
	n := strings.Count(buf.String(), "\n")
	time.Sleep(30 * time.Millisecond)
	if m := strings.Count(buf.String(), "\n"); m != n {
		t.Errorf("heartbeat printed %d lines after stop", m-n)
	}
}

// syncBuffer is a bytes.Buffer safe for the heartbeat goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRoundDur(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{7*time.Minute + 12*time.Second + 345*time.Millisecond, "7m12s"},
		{1234567 * time.Microsecond, "1.2s"},
		{12345 * time.Microsecond, "12ms"},
	}
	for _, tc := range tests {
		if got := roundDur(tc.in).String(); got != tc.want {
			t.Errorf("roundDur(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestProbeSkipAptReportsMissing(t *testing.T) {
	var out bytes.Buffer
	in := &installer{opts: withDefaults(Options{SkipApt: true, Out: &out})}
	s := step{name: "apt", system: true, probe: func(context.Context) (string, bool, string, error) {
		return "", false, "missing packages wrk", nil
	}}
	r, done := in.probe(context.Background(), stepLog{p: &progress{w: &out, total: 1}, index: 1, label: "apt"}, s)
	if !done || r.Status != StatusSkipped || r.Detail != "missing packages wrk" {
		t.Errorf("probe = %+v, done %v; want skipped naming wrk", r, done)
	}
	if !strings.Contains(out.String(), "[1/1] apt: skipped, missing packages wrk (SkipApt)") {
		t.Errorf("output: %s", out.String())
	}
}
