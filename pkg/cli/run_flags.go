package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
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
	stages      stagesValue
	method      string
	headers     headersValue
	body        string
	bodyFile    string
	contentType string
	accept      string
	timeout     timeoutValue
	h2          bool
	noKeepAlive bool
	host        string
	iterations  int
	warmup      warmupValue
	delay       time.Duration
	insecure    bool
	cacert      string
	cert, key   string
	name        string
	out         string
	output      formatValue
	slo         sloValue
	tokenEnv    string
	tokenFile   string
	tokenCmd    string
	token       string
	labDir      string
	live        bool
	changed     func(string) bool
}

func (o *runOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.timeout.d = plan.DefaultTimeout.D()
	f.StringVarP(&o.file, "file", "f", "", "scenario file (YAML); flags given beside it override its settings")
	f.Int64VarP(&o.requests, "requests", "n", plan.DefaultRequests, "requests per iteration")
	f.IntVarP(&o.concurrency, "concurrency", "c", plan.DefaultConcurrency, "workers (connections); in the open loop, the bound on in-flight requests")
	f.DurationVarP(&o.duration, "duration", "z", 0, "duration of each iteration, instead of -n (e.g. 30s)")
	f.Float64VarP(&o.rate, "rate", "q", 0, "TOTAL requests per second across workers; selects the open loop (hey's -q is per worker)")
	f.Var(&o.stages, "stages", `open-loop schedule instead of -q and -z: DURATION:RATE holds, DURATION:FROM-TO ramps, e.g. "30s:100,60s:100-500,30s:500"`)
	f.StringVarP(&o.method, "method", "m", plan.DefaultMethod, "HTTP method")
	f.VarP(&o.headers, "header", "H", `request header "Name: value" (repeatable)`)
	f.StringVarP(&o.body, "body", "d", "", "request body")
	f.StringVarP(&o.bodyFile, "body-file", "D", "", "request body from a file")
	f.StringVarP(&o.contentType, "content-type", "T", "", "Content-Type header")
	f.StringVarP(&o.accept, "accept", "A", "", "Accept header")
	f.VarP(&o.timeout, "timeout", "t", "timeout per request: seconds (as hey) or a duration such as 500ms")
	f.BoolVar(&o.h2, "h2", false, "enable HTTP/2")
	f.BoolVar(&o.noKeepAlive, "disable-keepalive", false, "open a new connection for every request")
	f.StringVar(&o.host, "host", "", "Host header override")
	f.IntVar(&o.iterations, "iterations", plan.DefaultIterations, "iterations of the whole load")
	f.Var(&o.warmup, "warmup", "unrecorded warm-up before the first iteration: a request count or a duration")
	f.DurationVar(&o.delay, "delay", 0, "pause between iterations")
	f.BoolVar(&o.insecure, "insecure", false, "skip TLS verification (verified by default, unlike hey)")
	f.StringVar(&o.cacert, "cacert", "", "PEM file of CAs to trust")
	f.StringVar(&o.cert, "cert", "", "client certificate (PEM)")
	f.StringVar(&o.key, "key", "", "client key (PEM)")
	f.StringVar(&o.name, "name", "", "run name (default: scenario name, or \"run\")")
	addOutDirFlag(cmd, &o.out)
	addFormatFlag(cmd, &o.output, "json prints only run.json on stdout", formatText, formatJSON)
	f.Var(&o.slo, "slo", `objectives checked per target, e.g. "p99<100ms,success_rate>=99.9%" (exit 3 when one fails)`)
	f.StringVar(&o.tokenEnv, "token-env", "", "bearer token from this environment variable")
	f.StringVar(&o.tokenFile, "token-file", "", "bearer token from this file (re-read when it changes)")
	f.StringVar(&o.tokenCmd, "token-command", "", `bearer token from a command's output, e.g. "oc whoami -t"`)
	f.StringVar(&o.token, "token", "", "bearer token (visible in the process list: prefer --token-env/--token-file)")
	addLabDirFlag(cmd, &o.labDir, "", "sample the components of the lab in this directory (default: the scenario's lab, else the running lab if the targets point at it)", "observe-lab")
	addLiveFlag(cmd, &o.live)
}

// plan builds the plan from a scenario file and/or flags. Defaults and
// checks are the plan layer's: the orchestrator completes and validates it.
func (o *runOptions) plan(ctx context.Context, args []string, log io.Writer) (*plan.Plan, error) {
	p := &plan.Plan{}
	if o.file != "" {
		sp, err := scenario.LoadContext(ctx, o.file)
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
		p.Targets = []plan.Target{{URL: args[0]}}
	}
	if err := o.apply(p, log); err != nil {
		return nil, err
	}
	// Fail before sampling starts; the orchestrator validates again after
	// completing the plan.
	return p, p.Validate()
}

// apply lays flags over the plan: every flag when there is no scenario,
// only the flags given explicitly when there is one. Flags given
// explicitly are recorded in p.Given, so that the plan layer checks them
// and names them in its errors.
func (o *runOptions) apply(p *plan.Plan, log io.Writer) error {
	set := func(name string) bool { return o.file == "" || o.changed(name) }
	give := func(flag, field string) {
		if o.changed(flag) {
			p.Give(field, flagName(flag))
		}
	}
	o.applyLoad(p, set, give)
	o.applyClient(p, set, give)
	if o.changed("slo") {
		for f := range p.Given {
			if strings.HasPrefix(f, "slo.") {
				delete(p.Given, f)
			}
		}
		p.SLO = o.slo.slo
		for _, f := range o.slo.fields {
			p.Give(f, "--slo")
		}
	}
	if o.labDir != "" {
		p.Lab = o.labDir
	}
	return o.applyTargets(p, set, log)
}

// flagName is how errors name a flag: its short form when it has one, as
// hey's users type it.
func flagName(name string) string {
	if short, ok := shortFlags[name]; ok {
		return "-" + short
	}
	return "--" + name
}

var shortFlags = map[string]string{"requests": "n", "concurrency": "c", "duration": "z", "rate": "q", "timeout": "t"}

func (o *runOptions) applyLoad(p *plan.Plan, set func(string) bool, give func(flag, field string)) {
	l := &p.Load
	if set("requests") || set("duration") {
		// -z wins over -n, as in hey.
		l.Requests, l.Duration = o.requests, plan.Duration(o.duration)
		delete(p.Given, plan.FieldRequests)
		delete(p.Given, plan.FieldDuration)
		switch {
		case o.duration != 0 && o.changed("requests"):
			// Both given: the plan refuses the pair, naming both flags.
			give("requests", plan.FieldRequests)
			give("duration", plan.FieldDuration)
		case o.duration != 0:
			l.Requests = 0
			give("duration", plan.FieldDuration)
		default:
			give("requests", plan.FieldRequests)
		}
	}
	if set("concurrency") {
		l.Concurrency = o.concurrency
		give("concurrency", plan.FieldConcurrency)
	}
	if set("rate") {
		// -q 0 is hey's "no rate limit": the closed loop, not a rate.
		l.Rate = o.rate
		delete(p.Given, plan.FieldRate)
		if o.rate != 0 {
			give("rate", plan.FieldRate)
		}
	}
	o.applyStages(p, give)
	if set("iterations") {
		l.Iterations = o.iterations
		give("iterations", plan.FieldIterations)
	}
	if set("delay") {
		l.Delay = plan.Duration(o.delay)
		give("delay", plan.FieldDelay)
	}
	if o.changed("warmup") {
		l.WarmupRequests, l.WarmupDuration = o.warmup.requests, plan.Duration(o.warmup.duration)
		give("warmup", plan.FieldWarmup)
	}
	if set("name") && o.name != "" {
		p.Name = o.name
	}
}

func (o *runOptions) applyClient(p *plan.Plan, set func(string) bool, give func(flag, field string)) {
	c := &p.Client
	if set("timeout") {
		c.Timeout = plan.Duration(o.timeout.d)
		give("timeout", plan.FieldTimeout)
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
	if o.cert != "" {
		c.Cert = o.cert
		p.Give(plan.FieldCert, "--cert")
	}
	if o.key != "" {
		c.Key = o.key
		p.Give(plan.FieldKey, "--key")
	}
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
		if body, err = boundedio.ReadFile(o.bodyFile, boundedio.Body); err != nil {
			return fmt.Errorf("reading body file: %w", err)
		}
	} else if o.body != "" {
		body = []byte(o.body)
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		if set("method") {
			t.Method = o.method
			p.Give(plan.FieldTargetMethod(i), "-m")
		}
		t.Headers = append(t.Headers, headers...)
		if body != nil {
			t.Body, t.BodyFile = body, o.bodyFile
		}
		if o.host != "" {
			t.Host = o.host
			p.Give(plan.FieldTargetHost(i), "--host")
		}
		if tok != nil {
			t.Token = tok
		}
	}
	return nil
}

func (o *runOptions) headerList() ([]plan.Header, error) {
	hs := append([]plan.Header(nil), o.headers.headers...)
	for _, f := range []struct{ flag, name, value string }{
		{"-T/--content-type", "Content-Type", o.contentType}, {"-A/--accept", "Accept", o.accept},
	} {
		if f.value == "" {
			continue
		}
		if err := plan.CheckHeaderValue(f.name, f.value); err != nil {
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
		hs = append(hs, plan.Header{Name: f.name, Value: f.value})
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
