package cli

// The CLI's vocabulary: typed flag values shared by every command that
// takes them, each validated in Set so that a bad value fails at parsing
// with the flag's name. A new command reuses these; see README's "Command
// line" table.

import (
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/stacks"
	"github.com/authbench/authbench/pkg/store"
)

// Output formats of -o/--output.
const (
	formatText = "text"
	formatJSON = "json"
	formatMD   = "md"
	formatHTML = "html"
)

// formatValue is -o/--output: an output format among a command's.
type formatValue struct {
	value   string
	allowed []string
}

func (f *formatValue) String() string { return f.value }
func (f *formatValue) Type() string   { return "format" }
func (f *formatValue) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return fmt.Errorf("want %s, got %q (to write a file, use --output-file)", strings.Join(f.allowed, " or "), s)
	}
	f.value = s
	return nil
}

// addFormatFlag declares -o/--output with the command's formats, the
// first one the default.
func addFormatFlag(cmd *cobra.Command, f *formatValue, usage string, allowed ...string) {
	f.value, f.allowed = allowed[0], allowed
	cmd.Flags().VarP(f, "output", "o", fmt.Sprintf("output format: %s; %s", strings.Join(allowed, ", "), usage))
}

// addFormatAlias declares --format, the older name of a file-writing
// command's -o, as a hidden, deprecated alias.
func addFormatAlias(cmd *cobra.Command, f *formatValue) {
	cmd.Flags().Var(f, "format", "output format")
	deprecate(cmd.Flags(), "format", "use -o/--output")
}

// addOutputFileFlag declares --output-file, where a command that writes a
// file writes it ("-" for stdout).
func addOutputFileFlag(cmd *cobra.Command, file *string, def, usage string) {
	cmd.Flags().StringVar(file, "output-file", def, usage)
}

// addOutDirFlag declares --out, the runs directory.
func addOutDirFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "out", store.DefaultRunsDir, "runs directory")
}

// addLabDirFlag declares --lab-dir, and the older names it replaces as
// hidden, deprecated aliases of the same variable.
func addLabDirFlag(cmd *cobra.Command, dir *string, def, usage string, aliases ...string) {
	f := cmd.Flags()
	f.StringVar(dir, "lab-dir", def, usage)
	for _, a := range aliases {
		f.StringVar(dir, a, def, usage)
		deprecate(f, a, "use --lab-dir")
	}
}

// addKubeconfigFlag declares --kubeconfig with kubectl's default:
// $KUBECONFIG, then ~/.kube/config.
// A note, when given, is added to the usage.
func addKubeconfigFlag(cmd *cobra.Command, file *string, note ...string) {
	usage := "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)"
	for _, n := range note {
		usage += "; " + n
	}
	cmd.Flags().StringVar(file, "kubeconfig", defaultKubeconfig(), usage)
}

// defaultKubeconfig is --kubeconfig's default, the one lookup every
// command shares (kubeapi.KubeconfigPath).
func defaultKubeconfig() string { return kubeapi.KubeconfigPath("") }

// timeoutValue is hey's -t: whole or fractional seconds ("20", "0.5") or
// a Go duration ("500ms"), positive.
type timeoutValue struct{ d time.Duration }

func (t *timeoutValue) String() string {
	if t.d%time.Second == 0 {
		return strconv.FormatInt(int64(t.d/time.Second), 10)
	}
	return t.d.String()
}
func (t *timeoutValue) Type() string { return "seconds|duration" }
func (t *timeoutValue) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n <= 0 {
			return fmt.Errorf("must be positive, got %s", s)
		}
		t.d = time.Duration(n * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want seconds or a positive duration such as 500ms, got %q", s)
	}
	t.d = d
	return nil
}

// warmupValue is --warmup: a request count ("500") or a duration ("10s"),
// not negative.
type warmupValue struct {
	requests int64
	duration time.Duration
}

func (w *warmupValue) String() string {
	if w.duration > 0 {
		return w.duration.String()
	}
	return strconv.FormatInt(w.requests, 10)
}
func (w *warmupValue) Type() string { return "count|duration" }
func (w *warmupValue) Set(s string) error {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return fmt.Errorf("must not be negative, got %d", n)
		}
		w.requests, w.duration = n, 0
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a request count or a duration such as 10s, got %q", s)
	}
	w.requests, w.duration = 0, d
	return nil
}

// headersValue is -H "Name: value", repeatable. A bad value is echoed
// redacted: it may hold a credential.
type headersValue struct{ headers []plan.Header }

func (h *headersValue) String() string {
	if len(h.headers) == 0 {
		return "" // no default for --help to show
	}
	return strconv.Itoa(len(h.headers)) + " header(s)"
}
func (h *headersValue) Type() string { return "\"Name: value\"" }
func (h *headersValue) Set(raw string) error {
	name, value, ok := strings.Cut(raw, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("bad header %q: want \"Name: value\"", redact.Header("authorization", raw))
	}
	hd := plan.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
	if err := plan.CheckHeader(hd); err != nil {
		return err
	}
	h.headers = append(h.headers, hd)
	return nil
}

// stacksValue is --stack: lab stacks by name (stacks.Names()), comma-separated
// or repeated, or "all". single limits it to one stack.
type stacksValue struct {
	stacks []string
	single bool
	set    bool
}

func (s *stacksValue) String() string { return strings.Join(s.stacks, ",") }
func (s *stacksValue) Type() string {
	return strings.Join(append(stacks.Names(), stacks.All), "|")
}
func (s *stacksValue) Set(v string) error {
	prev := s.stacks
	if !s.set {
		prev = nil // the first value replaces the default
	}
	got, err := stacks.Parse(append(prev, v))
	if err != nil {
		return err
	}
	if s.single && len(got) != 1 {
		return fmt.Errorf("takes one stack (%s), got %s", strings.Join(stacks.Names(), " or "), strings.Join(got, ","))
	}
	s.stacks, s.set = got, true
	return nil
}

// limitsValue is --limit COMPONENT=CPU[,MEM], repeatable; lab.ParseLimit
// reads each.
type limitsValue struct{ limits []lab.Limit }

func (l *limitsValue) String() string {
	parts := make([]string, len(l.limits))
	for i, x := range l.limits {
		parts[i] = x.Component + "=" + x.String()
	}
	return strings.Join(parts, " ")
}
func (l *limitsValue) Type() string { return "COMPONENT=CPU[,MEM]" }
func (l *limitsValue) Set(v string) error {
	x, err := lab.ParseLimit(v)
	if err != nil {
		return err
	}
	for _, prev := range l.limits {
		if prev.Component == x.Component {
			return fmt.Errorf("limit for %s given twice", x.Component)
		}
	}
	l.limits = append(l.limits, x)
	return nil
}

// sloValue is --slo "p99<100ms,success_rate>=99.9%": the scenario's slo
// keys in one line (plan.ParseSLO).
type sloValue struct {
	raw    string
	slo    *plan.SLO
	fields []string
}

func (s *sloValue) String() string { return s.raw }
func (s *sloValue) Type() string   { return "objectives" }
func (s *sloValue) Set(v string) error {
	slo, fields, err := plan.ParseSLO(v)
	if err != nil {
		return err
	}
	s.raw, s.slo, s.fields = v, slo, fields
	return nil
}

// platformValue is `lab up --platform`: one of lab.KnownPlatforms().
type platformValue struct{ name string }

func (p *platformValue) String() string { return p.name }
func (p *platformValue) Type() string   { return strings.Join(lab.KnownPlatforms(), "|") }
func (p *platformValue) Set(v string) error {
	if !slices.Contains(lab.KnownPlatforms(), v) {
		return fmt.Errorf("want %s, got %q", strings.Join(lab.KnownPlatforms(), " or "), v)
	}
	p.name = v
	return nil
}

// authzFailureModeValue is `lab up --authz-failure-mode deny|allow`.
type authzFailureModeValue struct{ mode stacks.AuthzFailureMode }

func (a *authzFailureModeValue) String() string { return string(a.mode) }
func (a *authzFailureModeValue) Type() string {
	return string(stacks.AuthzFailDeny) + "|" + string(stacks.AuthzFailAllow)
}
func (a *authzFailureModeValue) Set(v string) error {
	m, err := stacks.ParseAuthzFailureMode(v)
	if err != nil {
		return err
	}
	a.mode = m
	return nil
}

// portsValue is `lab up --port NAME=PORT`, repeatable.
type portsValue struct{ ports map[string]int }

func (p *portsValue) String() string {
	parts := make([]string, 0, len(p.ports))
	for name, port := range p.ports {
		parts = append(parts, name+"="+strconv.Itoa(port))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
func (p *portsValue) Type() string { return "NAME=PORT" }
func (p *portsValue) Set(v string) error {
	name, port, ok := strings.Cut(v, "=")
	n, err := strconv.Atoi(strings.TrimSpace(port))
	if !ok || strings.TrimSpace(name) == "" || err != nil {
		return fmt.Errorf("want NAME=PORT, e.g. haproxy=8443, got %q", v)
	}
	if p.ports == nil {
		p.ports = map[string]int{}
	}
	p.ports[strings.TrimSpace(name)] = n
	return nil
}

var (
	_ pflag.Value = (*formatValue)(nil)
	_ pflag.Value = (*timeoutValue)(nil)
	_ pflag.Value = (*warmupValue)(nil)
	_ pflag.Value = (*headersValue)(nil)
	_ pflag.Value = (*stacksValue)(nil)
	_ pflag.Value = (*limitsValue)(nil)
	_ pflag.Value = (*sloValue)(nil)
	_ pflag.Value = (*platformValue)(nil)
	_ pflag.Value = (*portsValue)(nil)
)

// deprecatedKey annotates a hidden flag kept for a release as an alias.
const deprecatedKey = "authbench/deprecated"

// deprecate hides a flag and records why, for warnDeprecated. pflag's own
// MarkDeprecated prints through cobra's output writer, which is stdout:
// `lab scenario --dir D > s.yaml` would then write the notice into the YAML.
func deprecate(fs *pflag.FlagSet, name, instead string) {
	_ = fs.MarkHidden(name)
	_ = fs.SetAnnotation(name, deprecatedKey, []string{instead})
}

// warnDeprecated tells on stderr which deprecated flags the command line used.
func warnDeprecated(cmd *cobra.Command, w io.Writer) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if why := f.Annotations[deprecatedKey]; len(why) > 0 {
			fmt.Fprintf(w, "authbench: flag --%s is deprecated: %s\n", f.Name, why[0])
		}
	})
}
