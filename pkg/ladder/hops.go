package ladder

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// HopMarker starts every line of the gateway's ladder log format, so that
// the lines can share a file with the gateway's other output.
const HopMarker = "authbench-ladder"

// EnvoyLogFormat is the Envoy access log format the ladder reads (the
// lab's gateways log it): the request's start in Unix milliseconds, and
// in microseconds the whole request, the upstream, and the ext_authz
// call (filter state kept with the ext_authz filter's
// emit_filter_state_stats). See stacks.EnvoyHopLogFormat.
const EnvoyLogFormat = stacks.EnvoyHopLogFormat

// HAProxyLogFormat is the HAProxy log-format the ladder reads (with a log
// target such as `log stdout format raw local0 info` in global and `log
// global` in defaults). Timers are milliseconds; -1 means not reached.
const HAProxyLogFormat = `log-format "authbench-ladder gw=haproxy ms=%[date(0,ms)] status=%ST Ta=%Ta Tr=%Tr Tw=%Tw Tc=%Tc"`

// HopRecord is one request as the gateway logged it.
type HopRecord struct {
	Gateway string // stacks.ProgramEnvoy or stacks.ProgramHAProxy
	At      time.Time
	Status  int
	// Ms holds each timer in milliseconds; a timer the request did not
	// reach ("-" in Envoy, -1 in HAProxy) is absent.
	Ms map[string]float64
}

// ParseHopLine reads one line of the ladder log format; false for any
// other line. Envoy's times are microseconds, HAProxy's milliseconds.
func ParseHopLine(line string) (HopRecord, bool) {
	i := strings.Index(line, HopMarker+" ")
	if i < 0 {
		return HopRecord{}, false
	}
	kv := splitFields(line[i+len(HopMarker)+1:])
	r := HopRecord{Gateway: kv["gw"], Ms: map[string]float64{}}
	r.Status, _ = strconv.Atoi(kv["status"])
	switch r.Gateway {
	case stacks.ProgramEnvoy:
		ms, err := strconv.ParseInt(kv["ms"], 10, 64)
		if err != nil {
			return HopRecord{}, false
		}
		r.At = time.UnixMilli(ms)
		for k, name := range map[string]string{"rt_us": "rt", "urt_us": "urt", "authz_us": "authz"} {
			if v, err := strconv.ParseFloat(kv[k], 64); err == nil && v >= 0 {
				r.Ms[name] = v / 1000
			}
		}
	case stacks.ProgramHAProxy:
		ms, err := strconv.ParseInt(kv["ms"], 10, 64)
		if err != nil {
			return HopRecord{}, false
		}
		r.At = time.UnixMilli(ms)
		for _, k := range []string{"Ta", "Tr", "Tw", "Tc"} {
			if v, err := strconv.ParseFloat(kv[k], 64); err == nil && v >= 0 {
				r.Ms[k] = v
			}
		}
	default:
		return HopRecord{}, false
	}
	return r, true
}

// splitFields reads space-separated key=value pairs.
func splitFields(s string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(s) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out[k] = v
		}
	}
	return out
}

// ReadHopLog reads the ladder's lines from the gateway's log file, keeping
// those logged within one of the windows (with a millisecond of slack for
// the log's rounding).
func ReadHopLog(path string, windows []window) ([]HopRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading gateway log: %w", err)
	}
	defer f.Close()
	var out []HopRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		r, ok := ParseHopLine(sc.Text())
		if ok && inWindows(r.At, windows) {
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading gateway log %s: %w", path, err)
	}
	return out, nil
}

func inWindows(t time.Time, ws []window) bool {
	const slack = 2 * time.Millisecond
	for _, w := range ws {
		if !t.Before(w.from.Add(-slack)) && !t.After(w.to.Add(slack)) {
			return true
		}
	}
	return false
}

// percentiles are the nearest-rank P50, P95 and P99 of vs (sorted here).
func percentiles(vs []float64) [3]float64 {
	var out [3]float64
	if len(vs) == 0 {
		return out
	}
	slices.Sort(vs)
	for i, p := range [3]float64{50, 95, 99} {
		k := int(math.Ceil(p/100*float64(len(vs)))) - 1
		out[i] = vs[min(max(k, 0), len(vs)-1)]
	}
	return out
}
