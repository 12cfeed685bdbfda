package ladder

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/stacks"
)

// DefaultFlushWait is how long the ladder waits for the gateway to flush
// a buffered access log (Envoy's file_flush_interval, 1s) before reading it.
const DefaultFlushWait = 1500 * time.Millisecond

// GatewayLog says where the gateway logs per-request timings in the
// ladder's format (EnvoyLogFormat, HAProxyLogFormat).
type GatewayLog struct {
	// Path is the log file.
	Path string
	// Gateway is the gateway's layer; the log lines of its turns (and of
	// the end-to-end turns, when they reach the same host) are read.
	// Default "": the target's outermost layer.
	Gateway string
	// Missing, when set, says why the gateway cannot be timed; it is
	// recorded instead of reading Path.
	Missing string
	// FlushWait defaults to DefaultFlushWait.
	FlushWait time.Duration
}

// hopExtAuthz names the gateway's timing of the ext_authz subrequest.
const hopExtAuthz = "ext_authz subrequest"

// hopDef is one timing read from the log: which layer it sits beside,
// and how to get its value from a record.
type hopDef struct {
	name, layer, source, figure string
	value                       func(HopRecord) (float64, bool)
}

// hops reads the gateway's timings and sets them beside the ladder's
// figures. Failures to read are recorded as Missing, never fatal.
func (l *ladderRun) hops(ctx context.Context, lad *results.Ladder) {
	g := l.o.Gateway
	gw := l.slotOf(g.Gateway)
	if gw == nil {
		lad.Hops = append(lad.Hops, results.HopTiming{Name: "gateway timings", Layer: g.Gateway,
			Missing: fmt.Sprintf("no rung for the gateway layer %q", g.Gateway)})
		return
	}
	if g.Missing != "" {
		lad.Hops = append(lad.Hops, l.missingHop(gw, g.Path, g.Missing))
		return
	}
	recs, err := readFlushed(ctx, g, l.gatewayWindows(gw))
	missing := ""
	switch {
	case err != nil:
		missing = err.Error()
	case len(recs) == 0:
		missing = fmt.Sprintf("no %q line in %s during the gateway's turns: the gateway does not log the ladder's format", HopMarker, g.Path)
	}
	if missing != "" {
		lad.Hops = append(lad.Hops, l.missingHop(gw, g.Path, missing))
		return
	}
	for _, d := range l.hopDefs(recs[0].Gateway, gw.layer) {
		h := timing(d, recs, g.Path, lad)
		lad.Hops = append(lad.Hops, h)
		if n := hopNote(h); n != "" {
			lad.Notes = append(lad.Notes, n)
		}
	}
}

// missingHop records why the gateway could not be timed: the ext_authz
// subrequest's timing when there is an ext_authz layer, else the gateway's.
func (l *ladderRun) missingHop(gw *slot, path, why string) results.HopTiming {
	if a := l.authLayer(); a != "" {
		return results.HopTiming{Name: hopExtAuthz, Layer: a, Log: path, Missing: why}
	}
	return results.HopTiming{Name: "gateway timings", Layer: gw.layer, Log: path, Missing: why}
}

// hopNote flags an ext_authz service that the gateway sees much slower
// than its own rung: the ladder then charges the difference to the gateway.
func hopNote(h results.HopTiming) string {
	if h.Missing != "" || h.LadderFigure != "added" || h.Name != hopExtAuthz {
		return ""
	}
	for i, p := range results.LadderPercentiles {
		seen, own := h.Ms.Values()[i], h.LadderMs.Values()[i]
		if seen > 2*own+h.ResolutionMs && seen-own > 2 {
			return fmt.Sprintf("The gateway times the ext_authz subrequest to %s at P%g %.0f ms, its own rung adds %.1f ms: "+
				"the service is slower when the gateway calls it, and the ladder charges the difference to the gateway's figure.",
				h.Layer, p, seen, own)
		}
	}
	return ""
}

// readFlushed reads the log once the gateway has flushed it: after
// FlushWait, and again until every request of the windows is there or
// four more waits have passed (a loaded host flushes late).
func readFlushed(ctx context.Context, g *GatewayLog, ws []window) ([]HopRecord, error) {
	wait := g.FlushWait
	if wait == 0 {
		wait = DefaultFlushWait
	}
	var want int64
	for _, w := range ws {
		want += w.requests
	}
	var recs []HopRecord
	var err error
	for range 5 {
		if runner.Sleep(ctx, wait) {
			break
		}
		recs, err = ReadHopLog(g.Path, ws)
		if err != nil || len(recs) == 0 || int64(len(recs)) >= want {
			break
		}
	}
	return recs, err
}

// gatewayWindows are the turns whose requests went through the gateway:
// its own and the end-to-end slot's when that reaches the same host.
func (l *ladderRun) gatewayWindows(gw *slot) []window {
	ws := append([]window(nil), gw.windows...)
	e2e := l.slots[len(l.slots)-1]
	if sameHost(e2e.url, gw.url) {
		ws = append(ws, e2e.windows...)
	}
	return ws
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host == ub.Host
}

func (l *ladderRun) slotOf(layer string) *slot {
	for _, s := range l.slots {
		if s.layer == layer {
			return s
		}
	}
	return nil
}

// authLayer is the ext_authz layer, or "" when there is none.
func (l *ladderRun) authLayer() string {
	for _, s := range l.slots {
		if s.extAuthz {
			return s.layer
		}
	}
	return ""
}

// innerLayer is the first inline layer with a rung inside layer.
func (l *ladderRun) innerLayer(layer string) string {
	for i := len(l.slots) - 2; i >= 0; i-- {
		if l.slots[i].layer == layer {
			for j := i - 1; j >= 0; j-- {
				if !l.slots[j].extAuthz {
					return l.slots[j].layer
				}
			}
		}
	}
	return ""
}

// hopDefs are the timings each gateway's format gives.
func (l *ladderRun) hopDefs(kind, gw string) []hopDef {
	if kind == stacks.ProgramHAProxy {
		return []hopDef{
			{"route's own time", gw, "HAProxy %Ta - %Tr", "added", diff("Ta", "Tr")},
			{"upstream response", l.innerLayer(gw), "HAProxy %Tr", "rung", field("Tr")},
		}
	}
	defs := []hopDef{{"gateway's own time", gw, "Envoy's request time - upstream time - ext_authz latency_us", "added", diff("rt", "urt", "authz")}}
	if a := l.authLayer(); a != "" {
		defs = append([]hopDef{{hopExtAuthz, a,
			"Envoy's ext_authz filter state latency_us (the authz call, connection included)", "added", field("authz")}}, defs...)
	}
	return defs
}

func field(k string) func(HopRecord) (float64, bool) {
	return func(r HopRecord) (float64, bool) {
		v, ok := r.Ms[k]
		return v, ok
	}
}

// diff is the first timer minus the others; every one must be present.
func diff(first string, minus ...string) func(HopRecord) (float64, bool) {
	return func(r HopRecord) (float64, bool) {
		v, ok := r.Ms[first]
		for _, k := range minus {
			m, has := r.Ms[k]
			v -= m
			ok = ok && has
		}
		return v, ok
	}
}

// timing aggregates one hop over the successful requests and pairs it
// with the ladder's figure for its layer.
func timing(d hopDef, recs []HopRecord, path string, lad *results.Ladder) results.HopTiming {
	h := results.HopTiming{Name: d.name, Layer: d.layer, Source: d.source, Log: path, ResolutionMs: resolutionMs(recs[0].Gateway), LadderFigure: d.figure}
	var vs []float64
	for _, r := range recs {
		if r.Status >= 400 {
			continue
		}
		if v, ok := d.value(r); ok {
			vs = append(vs, v)
		}
	}
	h.Requests = int64(len(vs))
	if len(vs) == 0 {
		h.Missing = "no successful request logged this timer"
	}
	h.Ms = results.QuantilesOf(percentiles(vs))
	if d.figure == "rung" {
		for _, r := range lad.Rungs {
			if r.Layer == d.layer {
				h.LadderMs = r.LatencyMs
			}
		}
		return h
	}
	for _, layer := range lad.Layers {
		if layer.Name == d.layer {
			h.LadderMs = layer.AddedMs
		}
	}
	return h
}

// resolutionMs is a gateway log's resolution: Envoy's microseconds,
// HAProxy's milliseconds.
func resolutionMs(gateway string) float64 {
	if gateway == stacks.ProgramEnvoy {
		return 0.001
	}
	return 1
}
