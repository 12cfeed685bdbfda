package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

// Every flag value refuses a bad value in Set, with a message naming what
// it wants, and reads a good one.
func TestFlagValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		value   pflag.Value
		in      []string
		want    string // String() after the good values
		wantErr string
	}{
		{"timeout seconds", &timeoutValue{}, []string{"20"}, "20", ""},
		{"timeout fraction", &timeoutValue{}, []string{"0.5"}, "500ms", ""},
		{"timeout duration", &timeoutValue{}, []string{"1m30s"}, "90", ""},
		{"timeout zero", &timeoutValue{}, []string{"0"}, "", "must be positive"},
		{"timeout word", &timeoutValue{}, []string{"soon"}, "", "want seconds or a positive duration"},
		{"warmup count", &warmupValue{}, []string{"500"}, "500", ""},
		{"warmup duration", &warmupValue{}, []string{"10s"}, "10s", ""},
		{"warmup negative", &warmupValue{}, []string{"-1"}, "", "must not be negative"},
		{"warmup word", &warmupValue{}, []string{"soon"}, "", "request count or a duration"},
		{"headers", &headersValue{}, []string{"A: 1", "B:2"}, "2 header(s)", ""},
		{"header without colon is redacted", &headersValue{}, []string{"Bearer s3cr3t"}, "", "<redacted"},
		{"stacks all", &stacksValue{}, []string{"all"}, strings.Join(stacks.Names(), ","), ""},
		{"stacks repeated", &stacksValue{}, []string{"3x", "2x"}, "2x,3x", ""},
		{"stacks comma", &stacksValue{}, []string{"3x,2x"}, "2x,3x", ""},
		{"stacks unknown", &stacksValue{}, []string{"4x"}, "", "unknown stack"},
		{"one stack", &stacksValue{single: true}, []string{"2x"}, "2x", ""},
		{"one stack, all", &stacksValue{single: true}, []string{"all"}, "", "takes one stack"},
		{"limits", &limitsValue{}, []string{"nginx=50m", "haproxy=0.5,256Mi"}, "nginx=50m haproxy=500m,256Mi", ""},
		{"limit twice", &limitsValue{}, []string{"nginx=50m", "nginx=1"}, "", "given twice"},
		{"limit bad", &limitsValue{}, []string{"nginx"}, "", "want COMPONENT=CPU[,MEM]"},
		{"slo", &sloValue{}, []string{"p99<100ms,success_rate>=99.9%"}, "p99<100ms,success_rate>=99.9%", ""},
		{"slo bad", &sloValue{}, []string{"p99>1s"}, "", "p99 takes <"},
		{"platform", &platformValue{}, []string{"kube"}, "kube", ""},
		{"platform unknown", &platformValue{}, []string{"vm"}, "", "want processes or kube"},
		{"ports", &portsValue{}, []string{"nginx=9443", "haproxy=8443"}, "haproxy=8443,nginx=9443", ""},
		{"ports bad", &portsValue{}, []string{"haproxy"}, "", "want NAME=PORT"},
		{"format", &formatValue{allowed: []string{"md", "html"}}, []string{"html"}, "html", ""},
		{"format unknown", &formatValue{allowed: []string{"md", "html"}}, []string{"report.html"}, "", "use --output-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			for _, in := range tc.in {
				if err = tc.value.Set(in); err != nil {
					break
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("error echoes a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.value.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// --stack takes its names from the lab's list, so a new stack needs no
// CLI change.
func TestStacksFollowTheLab(t *testing.T) {
	v := &stacksValue{}
	for _, s := range stacks.Names() {
		if err := v.Set(s); err != nil {
			t.Errorf("--stack %s: %v", s, err)
		}
	}
	if got := strings.Join(v.stacks, ","); got != strings.Join(stacks.Names(), ",") {
		t.Errorf("stacks = %s, want %v", got, stacks.Names())
	}
}

// The flags of run feed the plan's Given, so that the plan layer checks
// and names them; --slo and --lab-dir land in the plan.
func TestRunFlagsFeedThePlan(t *testing.T) {
	cmd := &cobra.Command{Use: "run"}
	o := &runOptions{}
	o.addFlags(cmd)
	args := []string{"-c", "0", "--slo", "p99<100ms", "--lab-dir", "/tmp/lab", "-t", "500ms", "http://127.0.0.1/"}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	o.changed = cmd.Flags().Changed
	p, err := o.plan(context.Background(), cmd.Flags().Args(), os.Stderr)
	if err == nil || !strings.Contains(err.Error(), "concurrency (-c): must be at least 1, got 0") {
		t.Fatalf("error = %v, want the plan layer's check of -c 0", err)
	}
	if p.Given[plan.FieldConcurrency] != "-c" || p.Given[plan.FieldTimeout] != "-t" || p.Given[plan.FieldSLOP99] != "--slo" {
		t.Errorf("given = %v", p.Given)
	}
	if p.SLO == nil || p.SLO.P99.D() != 100*time.Millisecond || p.Lab != "/tmp/lab" || p.Client.Timeout.D() != 500*time.Millisecond {
		t.Errorf("plan: slo %+v, lab %q, timeout %s", p.SLO, p.Lab, p.Client.Timeout)
	}
	if _, ok := p.Given[plan.FieldRequests]; ok {
		t.Error("-n was not given but is recorded as given")
	}
}

// A flag beside a scenario overrides the scenario's value and origin.
func TestFlagOverridesScenarioOrigin(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "s.yaml", "targets: [{url: http://127.0.0.1/}]\nload: {concurrency: 0, requests: 10}\n")
	r := runCLI(t, "run", "-f", f, "-c", "0")
	if r.code == 0 || !strings.Contains(r.stderr, "s.yaml:2: load.concurrency") {
		t.Fatalf("scenario error not at its line: exit %d, %s", r.code, r.stderr)
	}
	f = writeFile(t, dir, "ok.yaml", "targets: [{url: http://127.0.0.1:1/}]\nload: {concurrency: 2, requests: 10}\n")
	r = runCLI(t, "run", "-f", f, "-c", "0")
	if r.code == 0 || !strings.Contains(r.stderr, "concurrency (-c): must be at least 1, got 0") {
		t.Fatalf("flag error not named by its flag: exit %d, %s", r.code, r.stderr)
	}
}

// Old flag names still work for a release, hidden; new ones are typed.
func TestDeprecatedAliasesAndNewNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nolab")
	for _, args := range [][]string{
		{"lab", "status", "--dir", dir},
		{"lab", "status", "--lab-dir", dir},
		{"lab", "status", "--lab-dir", dir, "-o", "json"},
	} {
		r := runCLI(t, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "no lab is running") {
			t.Errorf("authbench %s: exit %d, stderr %q; want the lab in %s read (and not running)", strings.Join(args, " "), r.code, r.stderr, dir)
		}
	}
	// The kube platform is linked in (it refuses --foreground before
	// starting anything).
	r := runCLI(t, "lab", "up", "--lab-dir", dir, "--platform", "kube", "--foreground")
	if r.code == 0 || !strings.Contains(r.stderr, "--foreground is not supported") {
		t.Errorf("lab up --platform kube: exit %d, %q", r.code, r.stderr)
	}
	r = runCLI(t, "history", "--out", t.TempDir(), "--last", "3")
	if r.code != 0 {
		t.Errorf("history --last: exit %d, %q", r.code, r.stderr)
	}
	r = runCLI(t, "report", t.TempDir(), "-o", "summary.md")
	if r.code == 0 || !strings.Contains(r.stderr, "use --output-file") {
		t.Errorf("report -o FILE: exit %d, %q; want a hint at --output-file", r.code, r.stderr)
	}
}

func TestDefaultKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "/a/config"+string(filepath.ListSeparator)+"/b/config")
	if got := defaultKubeconfig(); got != "/a/config" {
		t.Errorf("with $KUBECONFIG: %q", got)
	}
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", "/home/u")
	if got := defaultKubeconfig(); got != "/home/u/.kube/config" {
		t.Errorf("without $KUBECONFIG: %q", got)
	}
	cmd := &cobra.Command{Use: "x"}
	var k string
	addKubeconfigFlag(cmd, &k)
	if k != "/home/u/.kube/config" {
		t.Errorf("--kubeconfig default = %q", k)
	}
}
