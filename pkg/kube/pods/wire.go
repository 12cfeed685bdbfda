package pods

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// Line kinds an agent writes on stdout, one JSON object per line.
const (
	KindReady    = "ready"    // prepared: token, client; waiting for a phase
	KindStart    = "start"    // started a phase, by its own clock
	KindInterval = "interval" // one second's histogram of a phase
	KindEnd      = "end"      // a phase's final result
	KindProbe    = "probe"    // a probe's fingerprint
	KindError    = "error"    // a phase could not run (setup, not per request)
)

// Line is one line of an agent's output. Fields beyond Kind and Seq are
// set by kind.
type Line struct {
	Kind string `json:"kind"`
	// Seq is the phase's sequence number (0 for ready).
	Seq int `json:"seq,omitempty"`
	// Time is the start time (start) or the interval's start (interval),
	// by the pod's clock.
	Time time.Time `json:"time,omitzero"`
	// End is the interval's end.
	End time.Time `json:"end,omitzero"`
	// Hist is an interval's (or the phase's total) corrected latency
	// histogram in µs: HdrHistogram V2 compressed, base64.
	Hist string `json:"hist,omitempty"`
	// Uncorrected is the open model's total uncorrected histogram.
	Uncorrected string `json:"uncorrected,omitempty"`
	// Lag is the open model's send-lag histogram (µs).
	Lag string `json:"lag,omitempty"`
	// Stages are a staged open loop's per-stage histograms, in order.
	Stages []StageHist `json:"stages,omitempty"`
	// End-of-phase fields.
	Result  *results.Result `json:"result,omitempty"`
	Series  []results.Point `json:"series,omitempty"`
	Unsent  int64           `json:"unsent,omitempty"`
	Partial bool            `json:"partial,omitempty"`
	CPU     *CPU            `json:"cpu,omitempty"`
	// Probe's fingerprint.
	Probe *results.TargetFingerprint `json:"probe,omitempty"`
	// Message of an error line (already scrubbed of secrets).
	Message string `json:"message,omitempty"`
}

// StageHist is one stage's corrected and uncorrected latency histograms,
// encoded as Hist is.
type StageHist struct {
	Hist        string `json:"hist,omitempty"`
	Uncorrected string `json:"uncorrected,omitempty"`
}

// CPU is a pod's own cgroup counters over one phase.
type CPU struct {
	Seconds          float64 `json:"seconds"`
	Limit            float64 `json:"limit_cores,omitempty"`
	Periods          int64   `json:"periods,omitempty"`
	ThrottledPeriods int64   `json:"throttled_periods,omitempty"`
}

// maxLine bounds one line read from a pod log: a dense histogram of an
// hour's range encodes to well under this.
const maxLine = 4 << 20

// ParseLine decodes one log line. Lines that are not an agent's JSON
// (a runtime's panic, a stray message) are reported as errors for the
// caller to skip or show.
func ParseLine(b []byte) (Line, error) {
	var l Line
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return l, errors.New("not an agent line")
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("agent line: %w", err)
	}
	switch l.Kind {
	case KindReady, KindStart, KindInterval, KindEnd, KindProbe, KindError:
	default:
		return l, fmt.Errorf("agent line: unknown kind %q", l.Kind)
	}
	if l.Seq < 0 {
		return l, fmt.Errorf("agent line: negative seq %d", l.Seq)
	}
	return l, nil
}

// EncodeHist is h in the HdrHistogram V2 log encoding (base64).
func EncodeHist(h *hdr.Histogram) (string, error) {
	if h == nil {
		return "", nil
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// DecodeHist reads EncodeHist's form; "" is no histogram.
func DecodeHist(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, nil
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}
