package load

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Interval is one second of a running attack as its collector closed it,
// for a live view. It is handed over on the collector's goroutine, never
// the workers'; its histograms belong to the attack and are valid only
// during the call.
type Interval struct {
	// Pod is the 1-based pod that measured it when the load runs in pods;
	// 0 in this process.
	Pod int
	// Start and End bound the second (wall clock).
	Start, End time.Time
	// Requests counts the requests completed in it, Errors those that did
	// not succeed (a failure or HTTP >= 400).
	Requests, Errors int64
	// Classes counts the unsuccessful requests by class: the transport
	// classes of Result.Errors (ClassRefused, ...) and HTTP statuses by
	// family ("HTTP 401/403", "HTTP 4xx", "HTTP 5xx"). Nil when the
	// executor does not say (pods).
	Classes map[string]int64
	// Corrected is the latency from the intended send time, in µs.
	Corrected *hdr.Histogram
	// Uncorrected is the latency from the actual send (open loop only;
	// nil otherwise or when the executor does not say).
	Uncorrected *hdr.Histogram
}

// WithIntervals hands every closed second of the attack to f, on the
// collector's goroutine once a second: f must return quickly and must not
// keep the histograms. It changes nothing the attack measures.
func WithIntervals(f func(Interval)) AttackOption {
	return func(c *attackConfig) { c.intervals = f }
}

// Indexes of interval.fails: the transport classes, then HTTP families.
const (
	failRefused = iota
	failReset
	failTimeout
	failTLS
	failDNS
	failOther
	failToken
	failAuth
	fail4xx
	fail5xx
	numFails
)

// failNames are the Interval.Classes keys of interval.fails.
var failNames = [numFails]string{ClassRefused, ClassReset, ClassTimeout, ClassTLS, ClassDNS,
	ClassOther, ClassAuthToken, "HTTP 401/403", "HTTP 4xx", "HTTP 5xx"}

// failIndex is the interval.fails slot of an unsuccessful request: its
// transport class, else its status's family; -1 for a success.
func failIndex(class string, status int) int {
	if class != "" {
		for i, n := range failNames[:failAuth] {
			if n == class {
				return i
			}
		}
		return failOther
	}
	switch {
	case status == 401 || status == 403:
		return failAuth
	case status >= 500:
		return fail5xx
	case status >= 400:
		return fail4xx
	}
	return -1
}

// classCounts turns summed fails into Interval.Classes, without zeros.
func classCounts(f *[numFails]int64) map[string]int64 {
	m := map[string]int64{}
	for i, n := range f {
		if n > 0 {
			m[failNames[i]] = n
		}
	}
	return m
}
