package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
)

// model is the run's load model; imported hey runs are closed loops.
func (s *summaryWriter) model() plan.Model {
	if len(s.run.Results) > 0 && s.run.Results[0].Model != "" {
		return s.run.Results[0].Model
	}
	return s.run.Plan.Load.Model()
}

// iterations is the planned iteration count, or what ran when the plan
// does not say (imported runs).
func (s *summaryWriter) iterations() int {
	if n := s.run.Plan.Load.Iterations; n > 0 {
		return n
	}
	most := 0
	for _, t := range s.targets {
		most = max(most, len(t.results))
	}
	return most
}

// loadConfig lists the load parameters shared by all targets.
func (s *summaryWriter) loadConfig() {
	if s.isCapacity() {
		s.capacityConfig()
		return
	}
	l := s.run.Plan.Load
	switch {
	case l.Duration > 0:
		s.item("Duration per Iteration", "%s", l.Duration)
	case l.Requests > 0:
		s.item("Requests per Iteration", "%s", fmtCount(l.Requests))
	default:
		s.item("Requests per Iteration", notMeasured)
	}
	open := s.model() == plan.Open
	switch {
	case open && len(l.Stages) > 0:
		s.item("Stages", "%s", stagesLine(l.Stages))
	case open:
		s.item("Rate", "%s in total, all workers together", fmtRPS(l.Rate))
	}
	switch {
	case l.Concurrency <= 0:
		s.item("Concurrency", notMeasured)
	case open:
		s.item("Concurrency", "at most %d requests in flight", l.Concurrency)
	default:
		s.item("Concurrency", "%d concurrent connections", l.Concurrency)
	}
	s.item("Iterations", "%d", s.iterations())
	if l.WarmupRequests > 0 || l.WarmupDuration > 0 {
		s.item("Warm-up", "%s (not recorded)", warmup(l))
	}
	if l.Delay > 0 {
		s.item("Delay between Iterations", "%s", l.Delay)
	}
	s.item("Tool", "%s", s.tool())
	s.item("Load Model", "%s", modelSentence(s.model(), l))
	if s.run.Imported != nil {
		// An importer cannot know the other tool's client settings, and
		// the plan's zero values would read as choices.
		s.item("Client", "settings not recorded by %s", firstNonEmpty(s.run.Imported.Tool, "the tool"))
	} else {
		s.item("Client", "%s", clientLine(s.run.Plan.Client, s.anyHTTPS()))
	}
}

func warmup(l plan.Load) string {
	var parts []string
	if l.WarmupRequests > 0 {
		parts = append(parts, fmtCount(l.WarmupRequests)+" requests")
	}
	if l.WarmupDuration > 0 {
		parts = append(parts, l.WarmupDuration.String())
	}
	return strings.Join(parts, ", ")
}

func (s *summaryWriter) tool() string {
	v := firstNonEmpty(s.run.AuthbenchVersion, "(version not recorded)")
	if im := s.run.Imported; im != nil {
		return fmt.Sprintf("%s (imported by authbench %s)", firstNonEmpty(im.Tool, "unknown tool"), v)
	}
	return "authbench " + v
}

// modelSentence says what the load model means for the latency figures,
// because closed-loop latency is queueing time and is often misread.
func modelSentence(m plan.Model, l plan.Load) string {
	if m == plan.Open && len(l.Stages) > 0 {
		return "open loop — requests are scheduled along the stages on one timeline whatever the target's speed, and latency " +
			"is measured from each request's intended send time, so it is corrected for coordinated omission."
	}
	if m == plan.Open {
		return fmt.Sprintf("open loop — requests are scheduled at %s whatever the target's speed, and latency "+
			"is measured from each request's intended send time, so it is corrected for coordinated omission.", fmtRPS(l.Rate))
	}
	return "closed loop — each worker sends its next request only when the previous one returns, so latency " +
		"includes queueing time and is bounded by the target's capacity."
}

// anyHTTPS reports whether TLS settings matter for this run.
func (s *summaryWriter) anyHTTPS() bool {
	for _, t := range s.run.Plan.Targets {
		if strings.HasPrefix(strings.ToLower(t.URL), "https:") {
			return true
		}
	}
	return false
}

func clientLine(c plan.Client, https bool) string {
	var parts []string
	if c.Timeout > 0 {
		parts = append(parts, "timeout "+c.Timeout.String())
	}
	if c.HTTP2 {
		parts = append(parts, "HTTP/2")
	} else {
		parts = append(parts, "HTTP/1.1")
	}
	if c.DisableKeepAlive {
		parts = append(parts, "new connection per request")
	} else {
		parts = append(parts, "keep-alive")
	}
	switch {
	case !https:
	case c.Insecure:
		parts = append(parts, "TLS NOT verified")
	default:
		parts = append(parts, "TLS verified")
	}
	if c.Cert != "" {
		parts = append(parts, "client certificate "+code(c.Cert))
	}
	return strings.Join(parts, ", ")
}

// targetList names the targets of a multi-target run.
func (s *summaryWriter) targetList() {
	s.item("Targets", "%d, benchmarked one after the other", len(s.targets))
	for _, t := range s.targets {
		url := notMeasured
		if t.spec != nil {
			url = code(redactURL(t.spec.URL))
		}
		s.printf("  - **%s:** %s\n", t.name, url)
	}
}

// targetURL says what one target requests.
func (s *summaryWriter) targetURL(t targetRun) {
	if t.spec == nil {
		s.item("Target", "%s (not described in the plan)", code(t.name))
		return
	}
	sp := t.spec
	s.item("Target URL", "%s", code(strings.TrimSpace(sp.Method+" "+redactURL(sp.URL))))
	if sp.Host != "" {
		s.item("Host Header", "%s", code(sp.Host))
	}
}

// targetDetails lists the rest of what is specific to one target.
func (s *summaryWriter) targetDetails(t targetRun) {
	s.item("Total Requests", "%s", s.totalRequests(t))
	if t.spec == nil {
		return
	}
	s.item("Authentication", "%s", authLine(t.spec))
	if len(t.spec.Headers) > 0 {
		hs := make([]string, len(t.spec.Headers))
		for i, h := range t.spec.Headers {
			hs[i] = code(h.Name + ": " + redactHeader(h))
		}
		s.item("Headers", "%s", strings.Join(hs, ", "))
	}
	if t.spec.BodyBytes > 0 || t.spec.BodyFile != "" {
		body := fmtCount(int64(t.spec.BodyBytes)) + " bytes"
		if t.spec.BodyFile != "" {
			body += " from " + code(t.spec.BodyFile)
		}
		s.item("Request Body", "%s", body)
	}
}

// totalRequests is what completed, with the planned count beside it when
// the plan fixes one and it differs.
func (s *summaryWriter) totalRequests(t targetRun) string {
	var done int64
	for _, r := range t.results {
		done += r.Requests
	}
	l := s.run.Plan.Load
	if l.Duration > 0 || l.Requests <= 0 || l.Iterations <= 0 {
		return fmtCount(done)
	}
	planned := l.Requests * int64(l.Iterations)
	if done == planned {
		return fmt.Sprintf("%s (%d × %s)", fmtCount(done), l.Iterations, fmtCount(l.Requests))
	}
	return fmt.Sprintf("%s completed of %s planned", fmtCount(done), fmtCount(planned))
}

// authLine describes where the token came from, never the token.
func authLine(t *plan.Target) string {
	sp := t.Token
	var d string
	switch sp.Kind() {
	case "static":
		d = "static — bearer token given literally"
	case "env":
		d = "env — bearer token from environment variable " + code(sp.Env)
	case "file":
		d = "file — bearer token read from " + code(sp.File) + " (re-read when it changes)"
	case "command":
		d = "command — bearer token printed by " + code(redact.Command(sp.Command))
	case "oidc":
		d = "oidc — " + oidcLine(sp.OIDC)
	case "pool":
		d = "pool — a different bearer token per request (" + poolOrder(sp.Pool) + ")"
		if sp.Pool.File != "" {
			d += ", one per line of " + code(sp.Pool.File)
		}
		if n := len(sp.Pool.Sources); n > 0 {
			d += fmt.Sprintf(", and %d further sources", n)
		}
	default:
		d = "none — no token source"
		for _, h := range t.Headers {
			if redact.IsSecretHeader(h.Name) {
				d += "; credentials sent in the " + code(h.Name) + " header (redacted below)"
				break
			}
		}
	}
	return d
}

func oidcLine(o *auth.OIDC) string {
	grant := o.Grant
	if grant == "" {
		grant = "client_credentials"
		if o.Username != "" {
			grant = "password"
		}
	}
	s := fmt.Sprintf("bearer token from an OIDC %s grant, issuer %s, client %s", grant, code(redactURL(o.Issuer)), code(o.ClientID))
	return s
}

// architecture draws the declared layers as the hand-written reports did.
func (s *summaryWriter) architecture(t targetRun) {
	s.heading(2, "Architecture Tested")
	client := "authbench"
	if s.run.Imported != nil {
		client = firstNonEmpty(s.run.Imported.Tool, client)
	}
	chain := []string{"Client (" + client + ")"}
	var layers []string
	if t.spec != nil {
		layers = t.spec.Layers
	}
	for _, l := range layers {
		chain = append(chain, s.describeLayer(l))
	}
	if len(layers) == 0 {
		target := t.name
		if t.spec != nil {
			target = redactURL(t.spec.URL)
		}
		chain = append(chain, target)
	}
	s.printf("```\n%s\n```\n\n", strings.Join(chain, "\n    ↓\n"))
	if len(layers) == 0 {
		s.printf("_Layers not declared: list them under `layers:` on the target to draw the path through the stack._\n\n")
	}
}

// describeLayer adds which real lab component plays a layer, if known,
// because the lab substitutes components (kube-rbac-proxy playing kube-auth-proxy).
func (s *summaryWriter) describeLayer(layer string) string {
	if s.run.Lab == nil {
		return layer
	}
	for _, c := range s.run.Lab.Components {
		var parts []string
		switch layer {
		case c.Name:
			parts = []string{c.Role, c.Version}
		case c.Role:
			parts = []string{strings.TrimSpace(c.Name + " " + c.Version)}
		default:
			continue
		}
		parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
		if len(parts) == 0 {
			return layer
		}
		return layer + " (lab: " + strings.Join(parts, ", ") + ")"
	}
	return layer
}

func poolOrder(p *auth.Pool) string {
	if p.Order == "" {
		return auth.OrderRoundRobin
	}
	return p.Order
}

// stagesLine is the schedule as given and its mean rate.
func stagesLine(ss plan.Stages) string {
	return fmt.Sprintf("`%s`, %d stages over %s, mean %s in total, all workers together", ss, len(ss), ss.Total(), fmtRPS(ss.Mean()))
}
