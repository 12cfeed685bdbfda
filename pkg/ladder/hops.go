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

// NginxLogFormat is the nginx log_format the ladder reads; the location
// proxying to the backend must also capture the auth subrequest's
// upstream time with `auth_request_set $authz_rt $upstream_response_time;`
// and `auth_request_set $authz_status $upstream_status;`. Times are
// seconds at millisecond resolution.
const NginxLogFormat = `log_format authbench_ladder 'authbench-ladder gw=nginx msec=$msec status=$status ` +
	`rt=$request_time urt=$upstream_response_time authz_status=$authz_status authz_rt=$authz_rt';`

// HAProxyLogFormat is the HAProxy log-format the ladder reads (with a log
// target such as `log stdout format raw local0 info` in global and `log
// global` in defaults). Timers are milliseconds; -1 means not reached.
const HAProxyLogFormat = `log-format "authbench-ladder gw=haproxy ms=%[date(0,ms)] status=%ST Ta=%Ta Tr=%Tr Tw=%Tw Tc=%Tc"`

// HopRecord is one request as the gateway logged it.
type HopRecord struct {
	Gateway string // stacks.ProgramNginx or stacks.ProgramHAProxy
	At      time.Time
	Status  int
	// Ms holds each timer in milliseconds; a timer the request did not
	// reach ("-" in nginx, -1 in HAProxy) is absent.
	Ms map[string]float64
}

// ParseHopLine reads one line of the ladder log format; false for any
// other line. nginx times are seconds (a list "0.001, 0.002" when several
// upstreams were tried: summed), HAProxy's milliseconds.
func ParseHopLine(line string) (HopRecord, bool) {
	i := strings.Index(line, HopMarker+" ")
	if i < 0 {
		return HopRecord{}, false
	}
	kv := splitFields(line[i+len(HopMarker)+1:])
	r := HopRecord{Gateway: kv["gw"], Ms: map[string]float64{}}
	r.Status, _ = strconv.Atoi(kv["status"])
	switch r.Gateway {
	case stacks.ProgramNginx:
		sec, err := strconv.ParseFloat(kv["msec"], 64)
		if err != nil {
			return HopRecord{}, false
		}
		r.At = time.UnixMilli(int64(math.Round(sec * 1000)))
		for _, k := range []string{"rt", "urt", "authz_rt"} {
			if v, ok := sumSeconds(kv[k]); ok {
				r.Ms[k] = v * 1000
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

// splitFields reads space-separated key=value pairs; a value may contain
// ", " (nginx's list of upstream times), which is rejoined.
func splitFields(s string) map[string]string {
	out := map[string]string{}
	last := ""
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			if last != "" {
				out[last] += " " + f
			}
			continue
		}
		out[k], last = v, k
	}
	return out
}

// sumSeconds adds nginx's per-upstream times ("0.001, 0.002" or with
// " : " for internal redirects); false when none was measured.
func sumSeconds(s string) (float64, bool) {
	var sum float64
	found := false
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' || r == ' ' }) {
		if v, err := strconv.ParseFloat(part, 64); err == nil {
			sum += v
			found = true
		}
	}
	return sum, found
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
