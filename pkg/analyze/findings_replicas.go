package analyze

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// KindReplicaReviews is the finding that an auth component ran as several
// replicas (`lab scale`) and what each asked the API server: every replica
// has its own token and review caches, so for one set of tokens the
// reviews grow with the replicas.
const KindReplicaReviews = "apiserver-replicas"

// ReplicaReviews is one replica's share of the run's reviews.
type ReplicaReviews struct {
	Name         string
	TokenReviews int64
	SARs         int64
}

// ReplicaSet is a scaled component's replicas and their reviews over a run.
type ReplicaSet struct {
	Component string
	Replicas  []ReplicaReviews
	// WindowS is the counted time (the iterations' windows, summed), and
	// Requests the requests of those iterations.
	WindowS  float64
	Requests int64
}

// Total is the replicas' reviews of both kinds.
func (s ReplicaSet) Total() int64 {
	var n int64
	for _, r := range s.Replicas {
		n += r.TokenReviews + r.SARs
	}
	return n
}

// ScaledReviews groups the audit log's callers of a run by the scaled
// component each replica belongs to: a replica's API server identity is
// named as the replica (the component itself, or COMPONENT-rN with
// ReplicaOf set in the lab record). Only components that ran more than one
// replica are returned.
func ScaledReviews(run *results.Run) []ReplicaSet {
	if run == nil || run.Lab == nil {
		return nil
	}
	group := replicaGroups(run)
	if len(group) == 0 {
		return nil
	}
	sets := map[string]*ReplicaSet{}
	per := map[string]*ReplicaReviews{}
	windows := map[string]float64{}
	for _, r := range run.Results {
		a := r.APIServer
		if a == nil {
			continue
		}
		for _, c := range a.Callers {
			name := c.Caller[strings.LastIndex(c.Caller, ":")+1:]
			base, ok := group[name]
			if !ok {
				continue
			}
			if sets[base] == nil {
				sets[base] = &ReplicaSet{Component: base}
			}
			if k := base + "\x00" + fmt.Sprint(r.Target, r.Iteration); windows[k] == 0 {
				windows[k] = a.WindowS
				sets[base].WindowS += a.WindowS
				sets[base].Requests += r.Requests
			}
			if per[name] == nil {
				per[name] = &ReplicaReviews{Name: name}
			}
			per[name].TokenReviews += c.TokenReviews
			per[name].SARs += c.SubjectAccessReviews
		}
	}
	for name, p := range per {
		sets[group[name]].Replicas = append(sets[group[name]].Replicas, *p)
	}
	var out []ReplicaSet
	for _, s := range sets {
		sort.Slice(s.Replicas, func(i, j int) bool { return replicaLess(s.Replicas[i].Name, s.Replicas[j].Name) })
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Component < out[j].Component })
	return out
}

// replicaGroups maps each replica's name, and its component's, to the
// component: from the lab record (ReplicaOf), and from the callers named
// COMPONENT-rN (pkg/stacks' names) of a component in the record, since
// replicas started after the run began are not in its record.
func replicaGroups(run *results.Run) map[string]string {
	group := map[string]string{}
	inLab := map[string]bool{}
	for _, c := range run.Lab.Components {
		inLab[c.Name] = true
		if c.ReplicaOf != "" {
			group[c.Name], group[c.ReplicaOf] = c.ReplicaOf, c.ReplicaOf
		}
	}
	for _, r := range run.Results {
		if r.APIServer == nil {
			continue
		}
		for _, c := range r.APIServer.Callers {
			name := c.Caller[strings.LastIndex(c.Caller, ":")+1:]
			if base, ok := replicaBase(name); ok && inLab[base] {
				group[name], group[base] = base, base
			}
		}
	}
	return group
}

// replicaBase splits COMPONENT-rN (N from 2) into COMPONENT.
func replicaBase(name string) (string, bool) {
	i := strings.LastIndex(name, "-r")
	if i <= 0 || i+2 >= len(name) || name[i+2] == '0' || strings.Trim(name[i+2:], "0123456789") != "" || name[i+2:] == "1" {
		return "", false
	}
	return name[:i], true
}

// replicaLess orders the component before its replicas, and r2 before r10.
func replicaLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// ReplicaFindings reports, per scaled component, each replica's reviews
// and the API server's review rate they made.
func ReplicaFindings(run *results.Run) []results.Finding {
	var out []results.Finding
	for _, s := range ScaledReviews(run) {
		n := len(s.Replicas)
		total := s.Total()
		var parts []string
		for _, r := range s.Replicas {
			parts = append(parts, fmt.Sprintf("%s %d", r.Name, r.TokenReviews+r.SARs))
		}
		rate := 0.0
		if s.WindowS > 0 {
			rate = float64(total) / s.WindowS
		}
		ev := fmt.Sprintf("%s ran as %d replicas, which asked the API server %d reviews in all (%s; mean %s per replica), %s reviews per second over the counted %s s.",
			s.Component, n, total, strings.Join(parts, ", "), num(float64(total)/float64(n)), num(rate), num(s.WindowS))
		out = append(out, results.Finding{
			Kind: KindReplicaReviews, Severity: SeverityInfo, Component: s.Component, Evidence: ev, Advice: replicaAdvice(s),
			Values: results.Values{"replicas": float64(n), "reviews": float64(total), "reviews_per_s": rate,
				"reviews_per_replica": float64(total) / float64(n)},
		})
	}
	return out
}

// uncachedShare is the reviews per request of one kind at which a scaled
// component's replicas are taken to answer no request from a cache.
const uncachedShare = 0.9

// replicaAdvice says what the replicas' reviews follow: the requests, for
// a component without a cache, else the replicas times the tokens.
func replicaAdvice(s ReplicaSet) string {
	var tr int64
	for _, r := range s.Replicas {
		tr += r.TokenReviews
	}
	if s.Requests > 0 && float64(tr) >= uncachedShare*float64(s.Requests) {
		return "No replica answered from a cache: the reviews follow the requests, one TokenReview each, whatever the replicas; " +
			"more replicas raise the review rate only as far as they raise the rate served. Size the API server for the rate served."
	}
	return "Each replica keeps its own token and review caches, so the same users' tokens are reviewed once per replica: " +
		"the API server's review load grows with the replicas (the migration reports' 32 replicas, 32 times the reviews of a cache miss). " +
		"Size the API server for replicas × distinct tokens per cache lifetime, or share the cache."
}
