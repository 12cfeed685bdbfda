package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// wrkUnavailable is what wrk --latency never prints.
var wrkUnavailable = []string{"min", "p95", "p999", "p9999", "phases", "status", "timeline", "histogram", "start"}

// WrkNon2xx is the status key under which wrk's "Non-2xx or 3xx responses"
// are counted: wrk does not say which codes they were.
const WrkNon2xx = "non-2xx/3xx"

var (
	wrkRunning  = regexp.MustCompile(`^Running (\S+) test @ (\S+)$`)
	wrkThreads  = regexp.MustCompile(`^(\d+) threads and (\d+) connections$`)
	wrkLatency  = regexp.MustCompile(`^Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%$`)
	wrkPct      = regexp.MustCompile(`^(\d+(?:\.\d+)?)%\s+(\S+)$`)
	wrkRequests = regexp.MustCompile(`^(\d+) requests in (\S+), .* read$`)
	wrkSocket   = regexp.MustCompile(`^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)$`)
	wrkNon2xx   = regexp.MustCompile(`^Non-2xx or 3xx responses: (\d+)$`)
	wrkRPS      = regexp.MustCompile(`^Requests/sec:\s+(\S+)$`)
)

// wrkBlock accumulates one wrk output.
type wrkBlock struct {
	p         parsed
	completed int64
	sock      [4]int64 // connect, read, write, timeout
	non2xx    int64
	sawCount  bool
	lats      int
}

// parseWrk splits data at each "Running ... test @ URL" and parses every
// output.
func parseWrk(data []byte, file string) ([]parsed, error) {
	var out []parsed
	var b *wrkBlock
	flush := func(line int) error {
		if b == nil {
			return nil
		}
		if !b.sawCount {
			return errBadLine(ToolWrk, file, line, "requests", fmt.Errorf("output has no \"N requests in T\" line (did wrk fail to connect?)"))
		}
		out = append(out, parsed{result: b.finish(), url: b.p.url, concurrency: b.p.concurrency, duration: b.p.duration})
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if m := wrkRunning.FindStringSubmatch(line); m != nil {
			if err := flush(n); err != nil {
				return nil, err
			}
			b = &wrkBlock{}
			b.p.url = m[2]
			if d, err := time.ParseDuration(m[1]); err == nil {
				b.p.duration = plan.Duration(d)
			}
			continue
		}
		if b == nil || line == "" {
			continue
		}
		if err := b.line(line); err != nil {
			return nil, errBadLine(ToolWrk, file, n, strings.Fields(line)[0], err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("importing wrk output: reading %s: %w", file, err)
	}
	if err := flush(0); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *wrkBlock) line(line string) error {
	r := &b.p.result
	var err error
	switch m := match(line); m.re {
	case wrkThreads:
		b.p.concurrency, err = strconv.Atoi(m.sub[2])
	case wrkLatency:
		r.Latency.Mean, err = wrkTime(m.sub[1])
		if err == nil {
			r.Latency.Stddev, err = wrkTime(m.sub[2])
		}
		if err == nil {
			r.Latency.Max, err = wrkTime(m.sub[3])
		}
	case wrkPct:
		var v float64
		if v, err = wrkTime(m.sub[2]); err == nil {
			b.percentile(m.sub[1], v)
		}
	case wrkRequests:
		b.sawCount = true
		if b.completed, err = strconv.ParseInt(m.sub[1], 10, 64); err == nil {
			var ms float64
			ms, err = wrkTime(m.sub[2])
			r.DurationS = ms / 1000
		}
	case wrkSocket:
		for i := range b.sock {
			if b.sock[i], err = strconv.ParseInt(m.sub[i+1], 10, 64); err != nil {
				break
			}
		}
	case wrkNon2xx:
		b.non2xx, err = strconv.ParseInt(m.sub[1], 10, 64)
	case wrkRPS:
		r.ThroughputRPS, err = measure(m.sub[1])
	}
	return err
}

type matched struct {
	re  *regexp.Regexp
	sub []string
}

func match(line string) matched {
	for _, re := range []*regexp.Regexp{wrkThreads, wrkLatency, wrkPct, wrkRequests, wrkSocket, wrkNon2xx, wrkRPS} {
		if m := re.FindStringSubmatch(line); m != nil {
			return matched{re, m}
		}
	}
	return matched{}
}

func (b *wrkBlock) percentile(p string, ms float64) {
	l := &b.p.result.Latency
	switch p {
	case "50":
		l.P50 = ms
	case "75":
		l.P75 = ms
	case "90":
		l.P90 = ms
	case "99":
		l.P99 = ms
	}
	b.lats++
}

// finish counts each socket error as a failed request; wrk's request
// count is of completed responses only.
func (b *wrkBlock) finish() results.Result {
	r := b.p.result
	failed := b.sock[0] + b.sock[1] + b.sock[2] + b.sock[3]
	r.Requests = b.completed + failed
	r.Successes = b.completed - b.non2xx
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Successes) / float64(r.Requests)
	}
	r.Status = map[string]int64{}
	if b.non2xx > 0 {
		r.Status[WrkNon2xx] = b.non2xx
	}
	r.Errors = map[string]int64{}
	if b.sock[3] > 0 {
		r.Errors["timeout"] = b.sock[3]
	}
	if other := b.sock[0] + b.sock[1] + b.sock[2]; other > 0 {
		r.Errors["other"] = other
		r.ErrorSamples = map[string]string{"other": fmt.Sprintf("wrk socket errors: connect %d, read %d, write %d", b.sock[0], b.sock[1], b.sock[2])}
	}
	r.Unavailable = append([]string(nil), wrkUnavailable...)
	if b.lats == 0 {
		r.Unavailable = append(r.Unavailable, "p50", "p75", "p90", "p99")
	}
	return r
}

// wrkTime parses wrk's durations ("9.21ms", "355.72us", "1.25s", "1.00m")
// into milliseconds.
func wrkTime(s string) (float64, error) {
	units := []struct {
		suffix string
		ms     float64
	}{{"us", 0.001}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := number(num)
			if err != nil {
				return 0, err
			}
			return v * u.ms, nil
		}
	}
	return 0, fmt.Errorf("bad duration %q", s)
}
