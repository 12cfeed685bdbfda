package analyze

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// Unknown is printed for a configuration value the run did not record.
const Unknown = "unknown"

// ConfigRow is one parameter side by side.
type ConfigRow struct {
	Parameter string   `json:"parameter"`
	Values    []string `json:"values"`
	// Differs is true when the values are not all equal.
	Differs bool `json:"differs"`
	// Critical marks a difference that makes the sides not comparable.
	Critical bool `json:"critical,omitempty"`
	// Intended marks a difference the sides declare (Declared): the
	// layers under test, and what they account for.
	Intended bool `json:"intended,omitempty"`
}

// Note is the migration reports' "Notes" column: Same, Different, Key change,
// or which side does not know the value.
func (r ConfigRow) Note() string {
	var unknown []int
	for i, v := range r.Values {
		if v == Unknown {
			unknown = append(unknown, i)
		}
	}
	switch {
	case !r.Differs:
		return "Same"
	case len(unknown) > 0:
		return "Not recorded everywhere"
	case r.Intended:
		return "On purpose"
	case r.Critical:
		return "**Key change**"
	}
	return "Different"
}

type configDef struct {
	name     string
	critical bool
	get      func(*Side) string
}

var configDefs = []configDef{
	{"Run", false, func(s *Side) string { return orUnknown(s.RunName) }},
	{"Test date", false, func(s *Side) string { return fmtDate(s.Run.Start) }},
	{"Tool", false, toolOf},
	{"Load generator host", true, func(s *Side) string { return orUnknown(s.Run.Environment.Host) }},
	{"CPUs", true, func(s *Side) string { return intOrUnknown(s.Run.Environment.CPUs) }},
	{"OS/arch", false, func(s *Side) string { return osArch(s) }},
	{"Target URL", false, func(s *Side) string { return orUnknown(targetURL(s)) }},
	{paramArchitecture, false, func(s *Side) string { return orUnknown(strings.Join(s.Layers, " → ")) }},
	{paramServer, true, func(s *Side) string { return fp(s, func(f fpT) string { return f.Server }) }},
	{"Backend body SHA-256", true, func(s *Side) string { return fp(s, func(f fpT) string { return short(f.BodySHA256, 12) }) }},
	{"Load model", true, func(s *Side) string { return string(s.Model) }},
	{"Requests/iteration", false, requestsOf},
	{"Concurrency", true, func(s *Side) string { return intOrUnknown(s.Concurrency) }},
	{"Rate (req/s)", true, rateOf},
	{"Iterations", false, func(s *Side) string { return strconv.Itoa(len(s.Results)) }},
	{"Total requests", false, func(s *Side) string { return commas(s.Requests) }},
	{"Warm-up", false, warmupOf},
	{"Timeout", false, func(s *Side) string { return durOrUnknown(s.Run.Plan.Client.Timeout) }},
	{"HTTP/2", false, func(s *Side) string { return yesNo(s.Run.Plan.Client.HTTP2) }},
	{"Keep-alive", false, func(s *Side) string { return yesNo(!s.Run.Plan.Client.DisableKeepAlive) }},
	{"Lab stacks", false, labOf},
}

// Parameters a declaration (Declared) can account for.
const (
	paramArchitecture = "Architecture"
	paramServer       = "Backend Server header"
)

type fpT = struct{ Server, BodySHA256 string }

func configRows(sides []*Side, baseline int) []ConfigRow {
	var rows []ConfigRow
	for _, d := range configDefs {
		r := ConfigRow{Parameter: d.name}
		for _, s := range sides {
			v := d.get(s)
			if imported(s) && importerBlind(d.name) {
				v = Unknown
			}
			r.Values = append(r.Values, v)
		}
		for _, v := range r.Values[1:] {
			if v != r.Values[0] {
				r.Differs = true
			}
		}
		r.Intended = r.Differs && rowDeclared(d.name, r, sides, baseline)
		r.Critical = d.critical && r.Differs && !r.Intended && !slices.Contains(r.Values, Unknown)
		rows = append(rows, r)
	}
	return rows
}

func imported(s *Side) bool { return s.Run.Imported != nil }

// importerBlind lists what an imported run cannot know about its plan.
func importerBlind(param string) bool {
	switch param {
	case "Timeout", "HTTP/2", "Keep-alive", "Warm-up":
		return true
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

func intOrUnknown(n int) string {
	if n <= 0 {
		return Unknown
	}
	return strconv.Itoa(n)
}

func durOrUnknown(d plan.Duration) string {
	if d <= 0 {
		return Unknown
	}
	return d.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func fmtDate(t time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func toolOf(s *Side) string {
	if s.Run.Imported != nil {
		return s.Run.Imported.Tool + " (imported)"
	}
	if s.Run.AuthbenchVersion != "" {
		return "authbench " + s.Run.AuthbenchVersion
	}
	return "authbench"
}

func osArch(s *Side) string {
	e := s.Run.Environment
	if e.OS == "" {
		return Unknown
	}
	return e.OS + "/" + e.Arch
}

func targetURL(s *Side) string {
	if s.Fingerprint != nil && s.Fingerprint.URL != "" {
		return s.Fingerprint.URL
	}
	for _, t := range s.Run.Plan.Targets {
		if t.Name == s.Target {
			return t.URL
		}
	}
	return ""
}

func fp(s *Side, get func(fpT) string) string {
	f := s.Fingerprint
	if f == nil || f.Error != "" {
		return Unknown
	}
	v := get(fpT{Server: f.Server, BodySHA256: f.BodySHA256})
	if v == "" {
		return "(none)"
	}
	return v
}

func requestsOf(s *Side) string {
	l := s.Run.Plan.Load
	switch {
	case l.Duration > 0:
		return l.Duration.String() + " per iteration"
	case l.Requests > 0:
		return commas(l.Requests)
	}
	return Unknown
}

func rateOf(s *Side) string {
	if s.Model == plan.Open {
		return strconv.FormatFloat(s.Rate, 'f', -1, 64)
	}
	return "none (closed loop)"
}

func warmupOf(s *Side) string {
	l := s.Run.Plan.Load
	switch {
	case l.WarmupDuration > 0:
		return l.WarmupDuration.String()
	case l.WarmupRequests > 0:
		return commas(l.WarmupRequests) + " requests"
	}
	return "none"
}

func labOf(s *Side) string {
	if s.Run.Lab == nil || len(s.Run.Lab.Stacks) == 0 {
		return "none"
	}
	return strings.Join(s.Run.Lab.Stacks, ", ")
}

// comparability returns the warnings that belong at the top of a report
// (the sides differ in something that changes the result) and notes.
func comparability(sides []*Side, baseline int, withinRun bool) (warn, notes []Warning) {
	base := sides[baseline]
	add := func(list *[]Warning, kind, format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		for _, w := range *list {
			if w.Message == msg {
				return
			}
		}
		*list = append(*list, Warning{Kind: kind, Message: msg})
	}
	for _, s := range sides {
		if s.Run.Partial {
			add(&warn, "partial", "%s is a partial run (interrupted): its figures cover only what was measured before the stop.", s.Label)
		}
		if imported(s) {
			add(&notes, "imported", "%s was imported from %s output: %s not measured by %s, and shown as not measured.",
				s.Label, s.Run.Imported.Tool, strings.Join(s.Unavailable, ", "), s.Run.Imported.Tool)
		}
		if s.Fingerprint == nil || s.Fingerprint.Error != "" {
			add(&notes, "fingerprint", "%s has no backend fingerprint: whether it hit the same backend cannot be checked.", s.Label)
		}
	}
	for i, s := range sides {
		if i == baseline {
			continue
		}
		for _, c := range pairChecks(base, s, withinRun) {
			if c.warn {
				add(&warn, c.kind, "%s", c.msg)
			} else {
				add(&notes, c.kind, "%s", c.msg)
			}
		}
	}
	return warn, notes
}

type check struct {
	kind, msg string
	warn      bool
}

// pairChecks compares one side with the baseline.
func pairChecks(a, b *Side, withinRun bool) []check {
	var out []check
	pair := a.Label + " and " + b.Label
	fa, fb := a.Fingerprint, b.Fingerprint
	if fa != nil && fb != nil && fa.Error == "" && fb.Error == "" {
		if fa.BodySHA256 != "" && fb.BodySHA256 != "" && fa.BodySHA256 != fb.BodySHA256 {
			out = append(out, check{"backend", fmt.Sprintf("Different backend: %s answered with different bodies (SHA-256 %s… vs %s…). The difference measured may be the backend's, not the auth stack's.", pair, short(fa.BodySHA256, 12), short(fb.BodySHA256, 12)), true})
		}
		if fa.Server != fb.Server && !serverDeclared(a, b) {
			out = append(out, check{"backend", fmt.Sprintf("Different Server header: %s vs %s (%s). A different backend or front layer answered.", quoteOr(fa.Server), quoteOr(fb.Server), pair), true})
		}
	}
	if a.Model != b.Model {
		out = append(out, check{"load-model", fmt.Sprintf("Different load model: %s is %s-loop, %s is %s-loop. Closed-loop latency is queueing time; open-loop latency is response time at a fixed rate: they are not comparable.", a.Label, a.Model, b.Label, b.Model), true})
	}
	switch {
	case a.Concurrency > 0 && b.Concurrency > 0 && a.Concurrency != b.Concurrency:
		out = append(out, check{"concurrency", fmt.Sprintf("Different concurrency: %d for %s vs %d for %s. In a closed loop latency scales with concurrency.", a.Concurrency, a.Label, b.Concurrency, b.Label), true})
	case a.Concurrency == 0 || b.Concurrency == 0:
		out = append(out, check{"concurrency", fmt.Sprintf("Concurrency is not recorded for %s: whether the load was the same cannot be checked.", unknownOf(a, b, func(s *Side) bool { return s.Concurrency == 0 })), false})
	}
	if a.Model == plan.Open && b.Model == plan.Open && a.Rate != b.Rate {
		out = append(out, check{"rate", fmt.Sprintf("Different rate: %g req/s for %s vs %g req/s for %s.", a.Rate, a.Label, b.Rate, b.Label), true})
	}
	out = append(out, neighbourCheck(a, b)...)
	if withinRun {
		return out
	}
	ea, eb := a.Run.Environment, b.Run.Environment
	if ea.Host != "" && eb.Host != "" && ea.Host != eb.Host {
		out = append(out, check{"host", fmt.Sprintf("Different load-generator hosts: %s ran on %s, %s on %s.", a.Label, ea.Host, b.Label, eb.Host), true})
	}
	if ea.CPUs > 0 && eb.CPUs > 0 && ea.CPUs != eb.CPUs {
		out = append(out, check{"cpus", fmt.Sprintf("Different load-generator CPUs: %d for %s vs %d for %s.", ea.CPUs, a.Label, eb.CPUs, b.Label), true})
	}
	if da, db := domainOf(targetURL(a)), domainOf(targetURL(b)); da != "" && db != "" && da != db {
		out = append(out, check{"cluster", fmt.Sprintf("Targets are in different domains (%s vs %s): possibly different clusters or networks.", da, db), true})
	}
	if ra, rb := requestsOf(a), requestsOf(b); ra != rb && ra != Unknown && rb != Unknown {
		out = append(out, check{"requests", fmt.Sprintf("Different amount of load per iteration: %s for %s vs %s for %s.", ra, a.Label, rb, b.Label), false})
	}
	if !a.Run.Start.IsZero() && !b.Run.Start.IsZero() {
		if d := b.Run.Start.Sub(a.Run.Start).Abs(); d > DatesApart {
			out = append(out, check{"date", fmt.Sprintf("Measured %d days apart (%s vs %s): anything else that changed in between is in the difference.", int(d.Hours()/24), a.Run.Start.UTC().Format("2006-01-02"), b.Run.Start.UTC().Format("2006-01-02")), false})
		}
	}
	return out
}

func quoteOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

func unknownOf(a, b *Side, unknown func(*Side) bool) string {
	var l []string
	for _, s := range []*Side{a, b} {
		if unknown(s) {
			l = append(l, s.Label)
		}
	}
	return strings.Join(l, " and ")
}

// domainOf is the URL's host without its first label: two routes of one
// cluster share it, two clusters do not. Loopback hosts have none.
func domainOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	h := u.Hostname()
	i := strings.IndexByte(h, '.')
	if i < 0 || strings.Count(h, ".") < 2 || isIP(h) {
		return ""
	}
	return h[i+1:]
}

func isIP(h string) bool {
	return strings.Trim(h, "0123456789.") == "" || strings.Contains(h, ":")
}
