package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// LadderText writes the ladder for a terminal: how it was measured, one
// row per layer from the client inwards (added P50/P95/P99 with
// intervals, share of the P95, rung capacity), the remainder and the
// end-to-end total, the bottleneck, the gateway's own timings and the
// notes. runDir, when set, is printed last.
func LadderText(w io.Writer, l *results.Ladder, runDir string) error {
	if l == nil {
		return fmt.Errorf("writing ladder: no ladder")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Latency breakdown of %s\n  %s.\n\n", l.Target, ladderMethod(l))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Layer (client inwards)\tAdded P50\tAdded P95\tAdded P99\tShare P95\tRung capacity\tOwn capacity")
	for _, layer := range l.Layers {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", layerLabel(layer), figureCell(layer.AddedMs.P50, layer.CIMs.P50),
			figureCell(layer.AddedMs.P95, layer.CIMs.P95), figureCell(layer.AddedMs.P99, layer.CIMs.P99),
			shareText(layer.Share.P95), capacityText(layer.CapacityRPS), capacityText(layer.OwnCapacityRPS))
	}
	fmt.Fprintf(tw, "  unattributed\t%s\t%s\t%s\t%s\n", figureCell(l.UnattributedMs.P50, l.UnattributedCIMs.P50),
		figureCell(l.UnattributedMs.P95, l.UnattributedCIMs.P95), figureCell(l.UnattributedMs.P99, l.UnattributedCIMs.P99),
		shareText(ratio(l.UnattributedMs.P95, l.TotalMs.P95)))
	fmt.Fprintf(tw, "  total (end to end)\t%s\t%s\t%s\t100%%\t%s\n", figureCell(l.TotalMs.P50, l.TotalCIMs.P50),
		figureCell(l.TotalMs.P95, l.TotalCIMs.P95), figureCell(l.TotalMs.P99, l.TotalCIMs.P99), capacityText(rungCapacity(l, results.EndToEnd)))
	tw.Flush()
	b.WriteString("\n")
	if base := innermost(l); base != "" {
		fmt.Fprintf(&b, "Overhead in front of %s: P95 %s %s (%s of total)\n", base, analyze.FormatMs(l.OverheadMs.P95),
			ciText(l.OverheadCIMs.P95), shareText(ratio(l.OverheadMs.P95, l.TotalMs.P95)))
	}
	if l.Bottleneck != "" {
		fmt.Fprintf(&b, "Bottleneck: %s (own capacity %s; its rung %s)\n", l.Bottleneck,
			capacityText(ownCapacity(l, l.Bottleneck)), capacityText(layerCapacity(l, l.Bottleneck)))
	}
	for _, h := range l.Hops {
		if h.Missing != "" {
			fmt.Fprintf(&b, "%s beside %s: not measured: %s\n", h.Name, h.Layer, h.Missing)
			continue
		}
		fmt.Fprintf(&b, "%s beside %s (%s): P50 %s, P95 %s, P99 %s over %s requests; ladder's %s\n", h.Name, h.Layer, h.Source,
			analyze.FormatMs(h.Ms.P50), analyze.FormatMs(h.Ms.P95), analyze.FormatMs(h.Ms.P99), fmtCount(h.Requests), hopLadderText(h))
	}
	if len(l.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range l.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	if runDir != "" {
		fmt.Fprintf(&b, "\nRun directory: %s\n", runDir)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing ladder: %w", err)
	}
	return nil
}
