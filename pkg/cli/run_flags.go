package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/scenario"
)

// runOptions are the flags of `authbench run`. Short flags and defaults
// follow hey so that a hey command line works unchanged, except -q, which
// is the TOTAL rate (hey's is per worker) and selects the open loop.
type runOptions struct {
	file        string
	requests    int64
	concurrency int
	duration    time.Duration
	rate        float64
	method      string
	headers     []string
	body        string
	bodyFile    string
	contentType string
	accept      string
	timeout     string
	h2          bool
	noKeepAlive bool
	host        string
	iterations  int
	warmup      string
	delay       time.Duration
	insecure    bool
	cacert      string
	cert, key   string
	name        string
	out         string
	output      string
	tokenEnv    string
	tokenFile   string
	tokenCmd    string
	token       string
	observeLab  string
	changed     func(string) bool
}

func (o *runOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.file, "file", "f", "", "scenario file (YAML); flags given beside it override its load settings")
	f.Int64VarP(&o.requests, "requests", "n", plan.DefaultRequests, "requests per iteration")
	f.IntVarP(&o.concurrency, "concurrency", "c", plan.DefaultConcurrency, "workers (connections); in the open loop, the bound on in-flight requests")
	f.DurationVarP(&o.duration, "duration", "z", 0, "duration of each iteration, instead of -n (e.g. 30s)")
	f.Float64VarP(&o.rate, "rate", "q", 0, "TOTAL requests per second across workers; selects the open loop (hey's -q is per worker)")
	f.StringVarP(&o.method, "method", "m", plan.DefaultMethod, "HTTP method")
	f.StringArrayVarP(&o.headers, "header", "H", nil, `request header "Name: value" (repeatable)`)
	f.StringVarP(&o.body, "body", "d", "", "request body")
	f.StringVarP(&o.bodyFile, "body-file", "D", "", "request body from a file")
	f.StringVarP(&o.contentType, "content-type", "T", "", "Content-Type header")
	f.StringVarP(&o.accept, "accept", "A", "", "Accept header")
	f.StringVarP(&o.timeout, "timeout", "t", "20", "timeout per request: seconds (as hey) or a duration such as 500ms")
	f.BoolVar(&o.h2, "h2", false, "enable HTTP/2")
	f.BoolVar(&o.noKeepAlive, "disable-keepalive", false, "open a new connection for every request")
	f.StringVar(&o.host, "host", "", "Host header override")
	f.IntVar(&o.iterations, "iterations", plan.DefaultIterations, "iterations of the whole load")
	f.StringVar(&o.warmup, "warmup", "", "unrecorded warm-up before the first iteration: a request count or a duration")
	f.DurationVar(&o.delay, "delay", 0, "pause between iterations")
	f.BoolVar(&o.insecure, "insecure", false, "skip TLS verification (verified by default, unlike hey)")
	f.StringVar(&o.cacert, "cacert", "", "PEM file of CAs to trust")
	f.StringVar(&o.cert, "cert", "", "client certificate (PEM)")
	f.StringVar(&o.key, "key", "", "client key (PEM)")
	f.StringVar(&o.name, "name", "", "run name (default: scenario name, or \"run\")")
	f.StringVar(&o.out, "out", "runs", "runs directory")
	f.StringVar(&o.output, "output", "text", "stdout format: text or json (json: only run.json on stdout)")
	f.StringVar(&o.tokenEnv, "token-env", "", "bearer token from this environment variable")
	f.StringVar(&o.tokenFile, "token-file", "", "bearer token from this file (re-read when it changes)")
	f.StringVar(&o.tokenCmd, "token-command", "", `bearer token from a command's output, e.g. "oc whoami -t"`)
	f.StringVar(&o.token, "token", "", "bearer token (visible in the process list: prefer --token-env/--token-file)")
	f.StringVar(&o.observeLab, "observe-lab", "", "sample the components of the lab in this directory (default: the running lab, if any)")
}

// plan builds the plan from a scenario file and/or flags.
func (o *runOptions) plan(args []string, log io.Writer) (*plan.Plan, error) {
	if o.output != "text" && o.output != "json" {
		return nil, fmt.Errorf("--output must be text or json, got %q", o.output)
	}
	p := &plan.Plan{}
	if o.file != "" {
		sp, err := scenario.Load(o.file)
		if err != nil {
			return nil, err
		}
		p = sp
		if len(args) > 0 {
			return nil, fmt.Errorf("give either a URL or -f %s, not both", o.file)
		}
	} else {
		if len(args) == 0 {
			return nil, fmt.Errorf("no target: give a URL (authbench run URL) or a scenario file (-f)")
		}
		if err := plan.ValidateURL(args[0]); err != nil {
			return nil, err
		}
		p.Targets = []plan.Target{{URL: args[0]}}
	}
	if err := o.apply(p, log); err != nil {
		return nil, err
	}
	p.Complete()
	return p, p.Validate()
}

// apply lays flags over the plan: every flag when there is no scenario,
// only the flags given explicitly when there is one.
func (o *runOptions) apply(p *plan.Plan, log io.Writer) error {
	set := func(name string) bool { return o.file == "" || o.changed(name) }
	if err := o.applyLoad(p, set); err != nil {
		return err
	}
	if err := o.applyClient(p, set); err != nil {
		return err
	}
	return o.applyTargets(p, set, log)
}

func (o *runOptions) applyLoad(p *plan.Plan, set func(string) bool) error {
	l := &p.Load
	// plan.Complete reads a zero as "unset" and would silently replace an
	// explicit -n 0, -c 0 or --iterations 0 with the default.
	if o.changed("requests") && o.requests == 0 && o.duration == 0 {
		return fmt.Errorf("requests (-n) must be at least 1, got 0")
	}
	if set("requests") || set("duration") {
		// -z wins over -n, as in hey.
		l.Requests, l.Duration = o.requests, plan.Duration(o.duration)
		if o.duration > 0 {
			l.Requests = 0
		}
	}
	if set("concurrency") {
		if o.concurrency < 1 {
			return fmt.Errorf("concurrency (-c) must be at least 1, got %d", o.concurrency)
		}
		l.Concurrency = o.concurrency
	}
	if set("rate") {
		l.Rate = o.rate
	}
	if set("iterations") {
		if o.iterations < 1 {
			return fmt.Errorf("iterations must be at least 1, got %d", o.iterations)
		}
		l.Iterations = o.iterations
	}
	if set("delay") {
		l.Delay = plan.Duration(o.delay)
	}
	if o.warmup != "" {
		n, d, err := parseWarmup(o.warmup)
		if err != nil {
			return err
		}
		l.WarmupRequests, l.WarmupDuration = n, plan.Duration(d)
	}
	if set("name") && o.name != "" {
		p.Name = o.name
	}
	return nil
}

func (o *runOptions) applyClient(p *plan.Plan, set func(string) bool) error {
	c := &p.Client
	if set("timeout") {
		d, err := parseTimeout(o.timeout)
		if err != nil {
			return err
		}
		c.Timeout = plan.Duration(d)
	}
	if set("h2") {
		c.HTTP2 = o.h2
	}
	if set("disable-keepalive") {
		c.DisableKeepAlive = o.noKeepAlive
	}
	if set("insecure") {
		c.Insecure = o.insecure
	}
	if o.cacert != "" {
		c.CACert = o.cacert
	}
	if o.cert != "" || o.key != "" {
		if o.cert == "" || o.key == "" {
			return fmt.Errorf("--cert and --key go together")
		}
		c.Cert, c.Key = o.cert, o.key
	}
	return nil
}

func (o *runOptions) applyTargets(p *plan.Plan, set func(string) bool, log io.Writer) error {
	tok, err := o.tokenSpec(log)
	if err != nil {
		return err
	}
	headers, err := o.headerList()
	if err != nil {
		return err
	}
	var body []byte
	if o.bodyFile != "" {
		if body, err = os.ReadFile(o.bodyFile); err != nil {
			return fmt.Errorf("reading body file: %w", err)
		}
	} else if o.body != "" {
		body = []byte(o.body)
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		if set("method") {
			t.Method = o.method
		}
		t.Headers = append(t.Headers, headers...)
		if body != nil {
			t.Body, t.BodyFile = body, o.bodyFile
		}
		if o.host != "" {
			t.Host = o.host
		}
		if tok != nil {
			t.Token = tok
		}
	}
	return nil
}

func (o *runOptions) headerList() ([]plan.Header, error) {
	var hs []plan.Header
	for _, raw := range o.headers {
		name, value, ok := strings.Cut(raw, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("bad header %q: want \"Name: value\"", redact.Header("authorization", raw))
		}
		hs = append(hs, plan.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	if o.contentType != "" {
		hs = append(hs, plan.Header{Name: "Content-Type", Value: o.contentType})
	}
	if o.accept != "" {
		hs = append(hs, plan.Header{Name: "Accept", Value: o.accept})
	}
	return hs, nil
}

// tokenSpec turns the token flags into a spec; at most one may be given.
func (o *runOptions) tokenSpec(log io.Writer) (*auth.Spec, error) {
	var specs []*auth.Spec
	if o.tokenEnv != "" {
		specs = append(specs, &auth.Spec{Env: o.tokenEnv})
	}
	if o.tokenFile != "" {
		specs = append(specs, &auth.Spec{File: o.tokenFile})
	}
	if o.tokenCmd != "" {
		specs = append(specs, &auth.Spec{Command: o.tokenCmd})
	}
	if o.token != "" {
		fmt.Fprintln(log, "warning: --token is visible to other users in the process list; prefer --token-env or --token-file")
		specs = append(specs, &auth.Spec{Static: true, Literal: o.token})
	}
	if len(specs) > 1 {
		return nil, fmt.Errorf("give one of --token, --token-env, --token-file, --token-command")
	}
	if len(specs) == 0 {
		return nil, nil
	}
	return specs[0], nil
}

// parseTimeout accepts hey's integer seconds or a Go duration.
func parseTimeout(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n <= 0 {
			return 0, fmt.Errorf("timeout (-t) must be positive, got %s", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout (-t) must be seconds or a positive duration such as 500ms, got %q", s)
	}
	return d, nil
}

// parseWarmup accepts a request count ("500") or a duration ("10s").
func parseWarmup(s string) (int64, time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, 0, fmt.Errorf("--warmup must not be negative, got %d", n)
		}
		return n, 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, 0, fmt.Errorf("--warmup takes a request count or a duration such as 10s, got %q", s)
	}
	return 0, d, nil
}
