package ladder

import (
	"context"
	"fmt"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
)

// slot is one measured entry point: a layer's rung or the end-to-end URL.
type slot struct {
	layer    string // the layer's name, or results.EndToEnd
	url      string // redacted (redact.URL): for messages and the record
	name     string // the target name of its results: "TARGET/LAYER"
	extAuthz bool
	index    int        // the session's target
	token    *auth.Spec // what the slot sends: a pool is this slot's share
	fp       results.TargetFingerprint
	probe    results.Result // the capacity probe
	hists    []*hdr.Histogram
	windows  []window
	unsent   int64 // open loop: requests due but never sent, all workers busy
	behind   []int // the rounds with unsent requests
}

// window is when one turn ran and how many requests it completed, to
// pick the gateway's log lines.
type window struct {
	from, to time.Time
	requests int64
}

// merged is the slot's latency over every round.
func (s *slot) merged() *hdr.Histogram {
	var m *hdr.Histogram
	for _, h := range s.hists {
		if m == nil {
			m = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		m.Merge(h)
	}
	return m
}

// layerOrder is the target's layers from the client inwards: Layers when
// given, else the rungs in the order listed.
func layerOrder(t plan.Target) ([]string, error) {
	if len(t.Layers) == 0 {
		var out []string
		for _, r := range t.Rungs {
			out = append(out, r.Layer)
		}
		return out, nil
	}
	for _, r := range t.Rungs {
		if !slices.Contains(t.Layers, r.Layer) {
			return nil, fmt.Errorf("target %q: rung %q is not one of its layers %v", t.Name, r.Layer, t.Layers)
		}
	}
	return t.Layers, nil
}

// buildSlots makes the rungs' slots inside out, then the end-to-end
// slot, and the target each slot sends to.
func buildSlots(t plan.Target) ([]*slot, []string, []plan.Target, error) {
	layers, err := layerOrder(t)
	if err != nil {
		return nil, nil, nil, err
	}
	var slots []*slot
	var targets []plan.Target
	add := func(layer, url string, st plan.Target) {
		st.Name, st.URL, st.Rungs, st.Layers = t.Name+"/"+layer, url, nil, nil
		slots = append(slots, &slot{layer: layer, url: redact.URL(url), name: st.Name, index: len(targets)})
		targets = append(targets, st)
	}
	for i := len(layers) - 1; i >= 0; i-- {
		for _, r := range t.Rungs {
			if r.Layer != layers[i] {
				continue
			}
			st := t
			st.Host, st.Headers = "", append(slices.Clone(t.Headers), r.Headers...)
			if r.Token != nil {
				st.Token = r.Token
			}
			add(r.Layer, r.URL, st)
		}
	}
	add(results.EndToEnd, t.URL, t)
	for i := range targets {
		targets[i].Token = sharePool(targets[i].Token, i, len(targets))
		slots[i].token = targets[i].Token
	}
	return slots, layers, targets, nil
}

// sharePool gives slot i of n its own share of a token pool. With one pool
// for every rung, whichever rung sent a token first paid its cache miss
// (a TokenReview, a SubjectAccessReview) and the rungs after it hit the
// caches, so the split between layers followed the order of the rungs.
// With disjoint shares every rung meets caches no other rung has warmed.
func sharePool(s *auth.Spec, i, n int) *auth.Spec {
	if s == nil || s.Pool == nil || s.Pool.Share != nil {
		return s
	}
	c, p := *s, *s.Pool
	p.Share = &auth.PoolShare{Index: i, Of: n}
	c.Pool = &p
	return &c
}

// sharesPools says whether any slot sends a share of a pool.
func sharesPools(slots []*slot) bool {
	return slices.ContainsFunc(slots, func(s *slot) bool { return s.token != nil && s.token.Pool != nil })
}

// fingerprint sends one request to every slot; a slot that does not
// answer 2xx/3xx is refused, naming what it answered.
func (l *ladderRun) fingerprint(ctx context.Context) error {
	for _, s := range l.slots {
		s.fp = l.s.Probe(ctx, s.index)
		switch {
		case s.fp.Error != "":
			return fmt.Errorf("probing %s (%s): %s", s.layer, s.url, s.fp.Error)
		case s.fp.Status >= 400:
			return fmt.Errorf("probing %s (%s): answered HTTP %d: give the rung the token it needs (rungs[].token) or check the layer",
				s.layer, s.url, s.fp.Status)
		}
	}
	return nil
}

// markExtAuthz applies Options.ExtAuthz or detects ext_authz layers: when
// the end-to-end answer has the backend's body (the chain passes bodies
// through), a rung answering with another body answers on its own.
func (l *ladderRun) markExtAuthz() {
	if l.o.ExtAuthz != nil {
		for _, s := range l.slots {
			s.extAuthz = slices.Contains(l.o.ExtAuthz, s.layer)
		}
		return
	}
	backend, e2e := l.slots[0], l.slots[len(l.slots)-1]
	if backend.fp.BodySHA256 == "" || e2e.fp.BodySHA256 != backend.fp.BodySHA256 {
		l.notef("The end-to-end answer differs from the backend's, so ext_authz layers could not be told from their answers; all layers are taken as inline (mark ext_authz layers explicitly if there are any).")
		return
	}
	for _, s := range l.slots[1 : len(l.slots)-1] {
		if s.fp.BodySHA256 != backend.fp.BodySHA256 {
			s.extAuthz = true
			l.notef("%s answers on its own (its body is not the backend's): taken as an ext_authz service called by the layer outside it.", s.layer)
		}
	}
}
