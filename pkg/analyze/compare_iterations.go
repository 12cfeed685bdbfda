package analyze

// IterationTable is one figure per iteration, side by side, as the migration
// reports' "Latency Distribution Comparison" tables.
type IterationTable struct {
	Key  string         `json:"key"` // p50, p95, p99, throughput
	Name string         `json:"name"`
	Unit string         `json:"unit"`
	Rows []IterationRow `json:"rows"`
	// Average is the mean over each side's iterations.
	Average []float64 `json:"average"`
	// Missing marks sides that did not measure the figure.
	Missing []bool `json:"missing"`
}

// IterationRow is iteration N of every side; Present is false where a side
// has fewer iterations.
type IterationRow struct {
	Iteration int       `json:"iteration"`
	Values    []float64 `json:"values"`
	Present   []bool    `json:"present"`
}

func iterationTables(sides []*Side) []IterationTable {
	defs := []struct{ key, name, unit string }{
		{"p50", "P50 (Median) - Typical User Experience", "ms"},
		{"p95", "P95 - SLA/Performance Target", "ms"},
		{"p99", "P99 - Tail Latency", "ms"},
		{"throughput", "Throughput", "req/s"},
	}
	n := 0
	for _, s := range sides {
		n = max(n, len(s.Results))
	}
	var out []IterationTable
	for _, d := range defs {
		t := IterationTable{Key: d.key, Name: d.name, Unit: d.unit}
		get := latencyField(d.key)
		value := func(s *Side, i int) float64 {
			if d.key == "throughput" {
				return s.Results[i].ThroughputRPS
			}
			return get(s.Results[i].Latency)
		}
		for _, s := range sides {
			t.Missing = append(t.Missing, d.key != "throughput" && !s.Measured(d.key))
		}
		for it := 0; it < n; it++ {
			row := IterationRow{Iteration: it + 1}
			for _, s := range sides {
				ok := it < len(s.Results)
				row.Present = append(row.Present, ok)
				v := 0.0
				if ok {
					v = value(s, it)
				}
				row.Values = append(row.Values, v)
			}
			t.Rows = append(t.Rows, row)
		}
		for _, s := range sides {
			var sum float64
			for i := range s.Results {
				sum += value(s, i)
			}
			avg := 0.0
			if len(s.Results) > 0 {
				avg = sum / float64(len(s.Results))
			}
			t.Average = append(t.Average, avg)
		}
		out = append(out, t)
	}
	return out
}
