package observe

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// maxGatewaySamples bounds what one exposition may hold: Envoy's whole
// /stats/prometheus is about 1,300 samples for the lab's gateway, so
// anything far beyond is not a gateway's answer and is refused rather
// than held in memory.
const maxGatewaySamples = 200_000

// parseExposition reads the samples of a Prometheus text exposition whose
// metric name keep accepts. Comments and blank lines are skipped; a kept
// line that does not parse is an error naming its line.
func parseExposition(r io.Reader, keep func(name string) bool) ([]promSample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxMetricsLine)
	var out []promSample
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		name := text
		if i := strings.IndexAny(text, "{ \t"); i >= 0 {
			name = text[:i]
		}
		if !keep(name) {
			continue
		}
		s, err := parseSample(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(out) == maxGatewaySamples {
			return nil, fmt.Errorf("line %d: more than %d samples", line, maxGatewaySamples)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Histogram is one cumulative Prometheus histogram as read: Bounds are
// the finite upper bounds, ascending; Cum holds the cumulative count at
// each bound and, last, the +Inf bucket's (the total).
type Histogram struct {
	Bounds []float64
	Cum    []float64
	Sum    float64
}

// Count is the histogram's total count.
func (h Histogram) Count() float64 {
	if len(h.Cum) == 0 {
		return 0
	}
	return h.Cum[len(h.Cum)-1]
}

// histBuilder gathers one histogram's lines, which may come in any order.
type histBuilder struct {
	buckets map[float64]float64 // le -> cumulative count; +Inf included
	sum     float64
}

func (b *histBuilder) add(s promSample, suffix string) error {
	switch suffix {
	case "_sum":
		b.sum = s.value
	case "_bucket":
		le, err := parseBound(s.labels["le"])
		if err != nil {
			return err
		}
		if b.buckets == nil {
			b.buckets = map[float64]float64{}
		}
		b.buckets[le] = s.value
	}
	return nil
}

// histogram orders the buckets; one without a +Inf bucket, or whose
// counts fall as the bounds rise, is no histogram.
func (b *histBuilder) histogram() (Histogram, error) {
	inf, ok := b.buckets[math.Inf(1)]
	if !ok {
		return Histogram{}, errors.New("histogram without a +Inf bucket")
	}
	h := Histogram{Sum: b.sum}
	for le := range b.buckets {
		if !math.IsInf(le, 1) {
			h.Bounds = append(h.Bounds, le)
		}
	}
	sort.Float64s(h.Bounds)
	for _, le := range h.Bounds {
		h.Cum = append(h.Cum, b.buckets[le])
	}
	h.Cum = append(h.Cum, inf)
	for i := 1; i < len(h.Cum); i++ {
		if h.Cum[i] < h.Cum[i-1] {
			return Histogram{}, errors.New("histogram whose counts fall as its bounds rise")
		}
	}
	return h, nil
}

func parseBound(s string) (float64, error) {
	if s == "+Inf" {
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad bucket bound %q", s)
	}
	return v, nil
}

// histSuffix splits a histogram series' name into its family and suffix.
func histSuffix(name string) (family, suffix string) {
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		if strings.HasSuffix(name, s) {
			return strings.TrimSuffix(name, s), s
		}
	}
	return name, ""
}
