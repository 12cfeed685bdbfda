package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// LatencyBreakdownHeading is the heading of the ladder's summary section.
const LatencyBreakdownHeading = "Latency Breakdown"

// LatencyBreakdown writes the ladder's "Latency Breakdown" section of
// summary.md in the migration reports' format — one bullet per layer from the
// client inwards, the unattributed remainder, the auth stack's overhead — with
// measured figures and their intervals, then a table of every percentile, the
// gateway's own timings and the notes on reading the figures.
func LatencyBreakdown(w io.Writer, l *results.Ladder) error {
	if l == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n", LatencyBreakdownHeading)
	fmt.Fprintf(&b, "Measured by the ladder, not estimated: %s. Each layer's added latency is its rung minus the rung inside it; "+
		"intervals are %.0f%% bootstrap intervals.\n\n", ladderMethod(l), l.Confidence*100)
	fmt.Fprintf(&b, "#### %s Latency Breakdown (Total: %s P95, measured end to end)\n\n", l.Target, analyze.FormatMs(l.TotalMs.P95))
	for _, layer := range l.Layers {
		fmt.Fprintf(&b, "- **%s:** %s P95 %s (%s of total); P50 %s %s, P99 %s %s; capacity %s\n",
			layerLabel(layer), analyze.FormatMs(layer.AddedMs.P95), ciText(layer.CIMs.P95), shareText(layer.Share.P95),
			analyze.FormatMs(layer.AddedMs.P50), ciText(layer.CIMs.P50), analyze.FormatMs(layer.AddedMs.P99), ciText(layer.CIMs.P99),
			capacityText(layer.CapacityRPS))
	}
	fmt.Fprintf(&b, "- **Unattributed:** %s P95 %s (%s of total): the end-to-end figure minus the layers' sum; percentiles do not add (see the notes)\n\n",
		analyze.FormatMs(l.UnattributedMs.P95), ciText(l.UnattributedCIMs.P95), shareText(ratio(l.UnattributedMs.P95, l.TotalMs.P95)))
	if base := innermost(l); base != "" {
		fmt.Fprintf(&b, "**Overhead from the stack in front of %s:** %s P95 %s (%s of total latency)\n\n", base,
			analyze.FormatMs(l.OverheadMs.P95), ciText(l.OverheadCIMs.P95), shareText(ratio(l.OverheadMs.P95, l.TotalMs.P95)))
	}
	if l.Bottleneck != "" {
		fmt.Fprintf(&b, "**Bottleneck:** %s — the lowest own capacity (%s; its rung: %s). A rung's inverse capacity is what a request costs its path at saturation; "+
			"a layer's own cost is taken from the rungs' as its latency is.\n\n",
			l.Bottleneck, capacityText(ownCapacity(l, l.Bottleneck)), capacityText(layerCapacity(l, l.Bottleneck)))
	}
	ladderMarkdownTable(&b, l)
	hopsMarkdown(&b, l.Hops)
	if len(l.Notes) > 0 {
		b.WriteString("**Reading these figures:**\n\n")
		for _, n := range l.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing latency breakdown: %w", err)
	}
	return nil
}

func ladderMarkdownTable(b *strings.Builder, l *results.Ladder) {
	mdHeader(b, "Layer (client inwards)", "Added P50", "Added P95", "Added P99", "Share of P95", "Rung capacity", "Own capacity")
	for _, layer := range l.Layers {
		mdRow(b, cell(layerLabel(layer)), figureCell(layer.AddedMs.P50, layer.CIMs.P50), figureCell(layer.AddedMs.P95, layer.CIMs.P95),
			figureCell(layer.AddedMs.P99, layer.CIMs.P99), shareText(layer.Share.P95), capacityText(layer.CapacityRPS), capacityText(layer.OwnCapacityRPS))
	}
	mdRow(b, "Unattributed", figureCell(l.UnattributedMs.P50, l.UnattributedCIMs.P50), figureCell(l.UnattributedMs.P95, l.UnattributedCIMs.P95),
		figureCell(l.UnattributedMs.P99, l.UnattributedCIMs.P99), shareText(ratio(l.UnattributedMs.P95, l.TotalMs.P95)), "", "")
	mdRow(b, bold("Total (end to end)"), figureCell(l.TotalMs.P50, l.TotalCIMs.P50), figureCell(l.TotalMs.P95, l.TotalCIMs.P95),
		figureCell(l.TotalMs.P99, l.TotalCIMs.P99), "100%", capacityText(rungCapacity(l, results.EndToEnd)), "")
	b.WriteString("\n")
}

func hopsMarkdown(b *strings.Builder, hops []results.HopTiming) {
	if len(hops) == 0 {
		return
	}
	b.WriteString("**The gateway's own timings** (its access log, beside the ladder's figure):\n\n")
	mdHeader(b, "Timing", "Beside", "P50", "P95", "P99", "Ladder's figure (P50 / P95 / P99)", "Requests")
	for _, h := range hops {
		if h.Missing != "" {
			mdRow(b, cell(h.Name), cell(h.Layer), notMeasured, notMeasured, notMeasured, cell(h.Missing), "0")
			continue
		}
		mdRow(b, cell(h.Name+" ("+h.Source+")"), cell(h.Layer), analyze.FormatMs(h.Ms.P50), analyze.FormatMs(h.Ms.P95),
			analyze.FormatMs(h.Ms.P99), hopLadderText(h), fmtCount(h.Requests))
	}
	fmt.Fprintf(b, "\nLog times have %s resolution. The gateway times an ext_authz hop whole (the call, the connection to the service and its work); the ladder's figure for an ext_authz layer is what the service adds over a trivial hop (its rung minus the backend's), so the gateway's figure is the one to set beside the layer's rung as a whole.\n\n", hopResolution(hops))
}

// hopResolution is the coarsest resolution among the logs timed.
func hopResolution(hops []results.HopTiming) string {
	r := 0.0
	for _, h := range hops {
		r = max(r, h.ResolutionMs)
	}
	switch {
	case r == 0 || r >= 1:
		return "1 ms"
	case r >= 0.001:
		return fmt.Sprintf("%g µs", r*1000)
	}
	return fmt.Sprintf("%g ms", r)
}

// ladderMethod says how the ladder measured, in one phrase.
func ladderMethod(l *results.Ladder) string {
	turn := fmt.Sprintf("%s per turn", fmtSecsShort(l.SlotDurationS))
	if l.SlotRequests > 0 {
		turn = fmt.Sprintf("%s requests per turn", fmtCount(l.SlotRequests))
	}
	load := fmt.Sprintf("a closed loop of %d workers", l.Concurrency)
	if l.Model != "closed" {
		load = fmt.Sprintf("an open loop at %s req/s", analyze.FormatRate(l.RateRPS))
		if l.RateFraction > 0 {
			load += fmt.Sprintf(" (%.0f%% of the weakest rung's capacity)", l.RateFraction*100)
		}
	}
	return fmt.Sprintf("%s on every entry point (%s, inside out), interleaved over %d round(s), %s", load,
		strings.Join(l.Order, " → "), l.Rounds, turn)
}

func fmtSecsShort(s float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", s), "0"), ".") + " s"
}

func layerLabel(l results.LadderLayer) string {
	s := l.Name
	if l.Kind == results.LayerExtAuthz {
		s += " (ext_authz)"
	}
	if len(l.Includes) > 0 {
		s += " (+ " + strings.Join(l.Includes, ", ") + ", no rung of its own)"
	}
	return s
}

func ciText(ci [2]float64) string {
	return "[" + analyze.FormatMs(ci[0]) + ", " + analyze.FormatMs(ci[1]) + "]"
}

func figureCell(v float64, ci [2]float64) string { return analyze.FormatMs(v) + " " + ciText(ci) }

func shareText(f float64) string {
	return fmt.Sprintf("%.0f%%", f*100)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func capacityText(rps float64) string {
	if rps <= 0 {
		return notMeasured
	}
	return cmpRate(rps)
}

func innermost(l *results.Ladder) string {
	for i := len(l.Layers) - 1; i >= 0; i-- {
		if l.Layers[i].Kind != results.LayerExtAuthz {
			return l.Layers[i].Name
		}
	}
	return ""
}

func layerCapacity(l *results.Ladder, name string) float64 {
	for _, layer := range l.Layers {
		if layer.Name == name {
			return layer.CapacityRPS
		}
	}
	return 0
}

func ownCapacity(l *results.Ladder, name string) float64 {
	for _, layer := range l.Layers {
		if layer.Name == name {
			return layer.OwnCapacityRPS
		}
	}
	return 0
}

func rungCapacity(l *results.Ladder, name string) float64 {
	for _, r := range l.Rungs {
		if r.Layer == name {
			return r.CapacityRPS
		}
	}
	return 0
}

func hopLadderText(h results.HopTiming) string {
	what := "added"
	if h.LadderFigure == "rung" {
		what = "rung latency"
	}
	return fmt.Sprintf("%s: %s / %s / %s", what, analyze.FormatMs(h.LadderMs.P50), analyze.FormatMs(h.LadderMs.P95), analyze.FormatMs(h.LadderMs.P99))
}
