package report

import (
	"fmt"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// ladderTables are the ladder's HTML tables: the breakdown and, when the
// gateway logged them, its own timings.
func ladderTables(l *results.Ladder) []htmlTable {
	t := htmlTable{ID: "latency-breakdown", Title: LatencyBreakdownHeading + ": " + l.Target,
		Head: []string{"Layer (client inwards)", "Added P50", "Added P95", "Added P99", "Share of P95", "Rung capacity", "Own capacity"},
		Note: fmt.Sprintf("Each layer's rung minus the rung inside it, with %.0f%% bootstrap intervals; percentiles do not add, "+
			"so the remainder is reported explicitly against the separately measured end-to-end latency.", l.Confidence*100)}
	for _, layer := range l.Layers {
		t.Rows = append(t.Rows, []string{layerLabel(layer), figureCell(layer.AddedMs.P50, layer.CIMs.P50),
			figureCell(layer.AddedMs.P95, layer.CIMs.P95), figureCell(layer.AddedMs.P99, layer.CIMs.P99),
			shareText(layer.Share.P95), capacityText(layer.CapacityRPS), capacityText(layer.OwnCapacityRPS)})
	}
	t.Rows = append(t.Rows,
		[]string{"Unattributed", figureCell(l.UnattributedMs.P50, l.UnattributedCIMs.P50), figureCell(l.UnattributedMs.P95, l.UnattributedCIMs.P95),
			figureCell(l.UnattributedMs.P99, l.UnattributedCIMs.P99), shareText(ratio(l.UnattributedMs.P95, l.TotalMs.P95)), "", ""},
		[]string{"Total (end to end)", figureCell(l.TotalMs.P50, l.TotalCIMs.P50), figureCell(l.TotalMs.P95, l.TotalCIMs.P95),
			figureCell(l.TotalMs.P99, l.TotalCIMs.P99), "100%", capacityText(rungCapacity(l, results.EndToEnd)), ""})
	tables := []htmlTable{t}
	if len(l.Hops) > 0 {
		h := htmlTable{ID: "gateway-timings", Title: "The gateway's own timings",
			Head: []string{"Timing", "Beside", "P50", "P95", "P99", "Ladder's figure (P50 / P95 / P99)", "Requests"},
			Note: "From the gateway's access log, at 1 ms resolution."}
		for _, hop := range l.Hops {
			if hop.Missing != "" {
				h.Rows = append(h.Rows, []string{hop.Name, hop.Layer, notMeasured, notMeasured, notMeasured, hop.Missing, "0"})
				continue
			}
			h.Rows = append(h.Rows, []string{hop.Name + " (" + hop.Source + ")", hop.Layer, analyze.FormatMs(hop.Ms.P50),
				analyze.FormatMs(hop.Ms.P95), analyze.FormatMs(hop.Ms.P99), hopLadderText(hop), fmtCount(hop.Requests)})
		}
		tables = append(tables, h)
	}
	return tables
}

// LadderCosts are the ladder's P95 figures for the Waterfall, from the
// client inwards, with the unattributed remainder last.
func LadderCosts(l *results.Ladder) []LayerCost {
	var out []LayerCost
	for _, layer := range l.Layers {
		out = append(out, LayerCost{Layer: layerLabel(layer), Ms: layer.AddedMs.P95, Measured: true})
	}
	return append(out, LayerCost{Layer: "unattributed", Ms: l.UnattributedMs.P95, Measured: true})
}

// ladderWaterfall is the waterfall figure with a caption saying what the
// bars are: P95 shifts, negative ones drawn as zero.
func ladderWaterfall(l *results.Ladder) chart {
	c := waterfallChart(LadderCosts(l))
	c.Caption = fmt.Sprintf("Each layer's added P95, from the client inwards, laid end to end up to the end-to-end P95 (%s). "+
		"A negative figure is drawn as zero; the table has the exact values and intervals.", analyze.FormatMs(l.TotalMs.P95))
	return c
}
