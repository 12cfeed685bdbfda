package load

import "github.com/authbench/authbench/pkg/redact"

// lateSend is how late a send may be and still count as on time. Go timers
// and the scheduler cannot promise better than about a millisecond, so a
// request sent more than 1 ms after its intended time is a late send.
const lateSend = 1_000_000 // ns

// totals are one worker's counts, merged once the attack is over.
type totals struct {
	requests, successes int64
	sent, late          int64 // open model
	lastSend            int64 // open model, engine clock
	maxLag              int64 // open model: largest send lag, ns
	status              []codeCount
	answers             [len(answerNames)]int64 // by answer; [answerNone] unused
	errors              map[string]int64
	samples             map[string]string
	lat, ulat           latStat
	phases              phaseSet
}

type codeCount struct {
	code int
	n    int64
}

func newTotals() totals {
	return totals{errors: map[string]int64{}, samples: map[string]string{}}
}

// add counts one request; class is err's (classify), "" without err.
func (t *totals) add(open bool, intended, sent, end int64, status int, err error, class string) {
	t.requests++
	if open {
		t.sent++
		if sent-intended > lateSend {
			t.late++
		}
		t.lastSend = max(t.lastSend, sent)
		t.maxLag = max(t.maxLag, sent-intended)
	}
	if err != nil {
		t.errors[class]++
		if _, ok := t.samples[class]; !ok {
			// The sample is recorded: net/http quotes the whole URL.
			t.samples[class] = redact.Text(err.Error())
		}
		return
	}
	if status < 400 {
		t.successes++
	}
	t.addStatus(status, 1)
	t.lat.add(end - intended)
	if open {
		t.ulat.add(end - sent)
	}
}

func (t *totals) addStatus(code int, n int64) {
	for i := range t.status {
		if t.status[i].code == code {
			t.status[i].n += n
			return
		}
	}
	t.status = append(t.status, codeCount{code, n})
}

func (t *totals) merge(o *totals) {
	t.requests += o.requests
	t.successes += o.successes
	t.sent += o.sent
	t.late += o.late
	t.lastSend = max(t.lastSend, o.lastSend)
	t.maxLag = max(t.maxLag, o.maxLag)
	for _, c := range o.status {
		t.addStatus(c.code, c.n)
	}
	for i, n := range o.answers {
		t.answers[i] += n
	}
	for k, v := range o.errors {
		t.errors[k] += v
	}
	for k, v := range o.samples {
		if _, ok := t.samples[k]; !ok {
			t.samples[k] = v
		}
	}
	t.lat.merge(o.lat)
	t.ulat.merge(o.ulat)
	for i := range t.phases {
		t.phases[i].merge(o.phases[i])
	}
}

// latStat is the exact min, max and mean of a latency in ns; percentiles
// come from the histogram.
type latStat struct {
	n        int64
	sum      float64
	min, max int64
}

func (l *latStat) add(d int64) {
	if l.n == 0 || d < l.min {
		l.min = d
	}
	l.max = max(l.max, d)
	l.sum += float64(d)
	l.n++
}

func (l *latStat) merge(o latStat) {
	if o.n == 0 {
		return
	}
	if l.n == 0 || o.min < l.min {
		l.min = o.min
	}
	l.max = max(l.max, o.max)
	l.sum += o.sum
	l.n += o.n
}
