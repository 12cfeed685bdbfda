package scenario

import (
	"fmt"
	"regexp"

	"github.com/authbench/authbench/pkg/plan"
)

func (b *builder) observe(cs []componentSpec) []plan.Component {
	var out []plan.Component
	first := map[string]int{}
	for i := range cs {
		c := &cs[i]
		path := fmt.Sprintf("observe[%d]", i)
		pc := plan.Component{
			Name: c.Name, Role: c.Role, Process: c.Process, Cgroup: c.Cgroup,
			Namespace: c.Namespace, Pod: c.Pod, Container: c.Container,
		}
		if c.PID != nil {
			if *c.PID < 1 {
				b.errAt(c, path, "pid", "must be a process id, got %d", *c.PID)
			}
			pc.PID = *c.PID
		}
		if j, dup := first[c.Name]; dup && c.Name != "" {
			b.errAt(c, path, "name", "%q is also the name of observe[%d]", c.Name, j)
		} else {
			first[c.Name] = i
		}
		if c.Name == "" {
			b.missing(c, path, "name", "required: a label for the component in results")
		}
		b.selector(c, path)
		b.container(c, path)
		out = append(out, pc)
	}
	return out
}

// container checks a Prometheus component's names as Kubernetes would
// accept them, before they reach a query: the namespace and container are
// RFC 1123 labels, the pod a regular expression.
func (b *builder) container(c *componentSpec, path string) {
	if _, err := plan.ParseNamespace(c.Namespace); err != nil {
		b.errAt(c, path, "namespace", "%q: %v", c.Namespace, err)
	}
	if err := plan.CheckDNSLabel(c.Container); c.Container != "" && err != nil {
		b.errAt(c, path, "container", "%q: %v", c.Container, err)
	}
	if _, err := regexp.Compile(c.Pod); err != nil {
		b.errAt(c, path, "pod", "%q: want a regular expression matching the pod names: %v", c.Pod, err)
	}
}

// selector checks that a component says exactly how to find it.
func (b *builder) selector(c *componentSpec, path string) {
	local := 0
	for _, set := range []bool{c.PID != nil, c.Process != "", c.Cgroup != ""} {
		if set {
			local++
		}
	}
	kube := c.Namespace != "" || c.Pod != "" || c.Container != ""
	switch {
	case local > 1:
		b.errAt(c, path, "", "give only one of pid, process and cgroup")
	case local == 1 && kube:
		b.errAt(c, path, "", "give a local process (pid, process or cgroup) or a container (namespace, pod, container), not both")
	case local == 0 && !kube:
		b.errAt(c, path, "", "say what to sample: pid, process or cgroup for a local process, or namespace, pod and container for Prometheus")
	}
}

// promDuration is a Prometheus duration such as "1m", "2m30s" or "1d".
var promDuration = regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`)

func (b *builder) prometheus(s *prometheusSpec) *plan.Prometheus {
	if s == nil {
		return nil
	}
	const path = "prometheus"
	out := &plan.Prometheus{URL: s.URL, Insecure: s.Insecure, RateInterval: s.RateInterval}
	b.url(s, path, "url", s.URL)
	out.CACert = b.file(s, path, "cacert", s.CACert)
	if s.Token != nil {
		out.Token = b.token(s.Token, join(path, "token"))
	}
	if s.Step != nil {
		if *s.Step <= 0 {
			b.errAt(s, path, "step", "must be positive, got %s", s.Step.std())
		}
		out.Step = plan.Duration(*s.Step)
	}
	if s.Settle != nil {
		if *s.Settle < 0 {
			b.errAt(s, path, "settle", "must not be negative, got %s", s.Settle.std())
		}
		out.Settle = plan.Duration(*s.Settle)
	}
	if s.RateInterval != "" && !promDuration.MatchString(s.RateInterval) {
		b.errAt(s, path, "rate_interval", "want a Prometheus duration such as \"1m\" or \"2m30s\", got %q", s.RateInterval)
	}
	for i := range s.Profile {
		m := &s.Profile[i]
		mpath := fmt.Sprintf("%s.profile[%d]", path, i)
		if m.Query == "" {
			b.missing(m, mpath, "query", "required: the PromQL query")
		}
		if m.MetricName == "" {
			b.missing(m, mpath, "metricName", "required: what the query measures")
		}
		out.Profile = append(out.Profile, plan.Metric{Query: m.Query, MetricName: m.MetricName})
	}
	return out
}

func (b *builder) capacity(c *capacitySpec) *plan.Capacity {
	if c == nil {
		return nil
	}
	const path = "capacity"
	out := &plan.Capacity{}
	switch {
	case c.TargetRPS == nil:
		b.missing(c, path, "target_rps", "required: the throughput to size replicas for, in requests per second")
	case *c.TargetRPS <= 0:
		b.errAt(c, path, "target_rps", "must be more than 0 requests per second, got %g", *c.TargetRPS)
	default:
		out.TargetRPS = *c.TargetRPS
	}
	if c.Utilization != nil {
		u := float64(*c.Utilization)
		if u <= 0 || u > 1 {
			b.errAt(c, path, "utilization", "must be a fraction in (0, 1] or a percentage such as \"70%%\", got %g", u)
		}
		out.Utilization = u
	}
	return out
}
