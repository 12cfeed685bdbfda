//go:build linux

package load

import (
	"errors"
)

// parse reads the response from the bytes so far; a partial one waits for
// more. What follows is h1.roundTrip's handling of the outcome.
func (c *evconn) parse() {
	if c.n == 0 {
		if c.rerr == nil {
			return
		}
		err := c.werr
		if err == nil {
			err = &opError{"reading response", c.rerr}
		}
		c.fail(err, false)
		return
	}
	if status, ans, keep, used, ok := answerIn(c.buf[:c.n], c.l.t.head, readBufSize); ok {
		c.answered(status, ans, keep, used < c.n)
		return
	}
	end := c.rerr
	if end == nil {
		end = errNeedMore
	}
	c.feed = feedReader{b: c.buf[:c.n], end: end}
	c.br.Reset(&c.feed)
	status, ans, keep, err := readAnswer(c.br, c.l.t.head)
	if errors.Is(err, errNeedMore) {
		return
	}
	if err != nil && !(c.reused && status == 408 && !keep) {
		c.fail(&opError{"reading response", err}, true)
		return
	}
	c.answered(status, ans, keep, len(c.feed.b) > 0 || c.br.Buffered() > 0)
}

// answered ends the request with a parsed answer; unasked says bytes
// followed it that no request asked for.
func (c *evconn) answered(status int, ans answer, keep, unasked bool) {
	if c.reused && status == 408 && !keep {
		// HAProxy's goodbye on an idle keep-alive connection (see h1).
		c.fail(errServerClosedIdle, false)
		return
	}
	t3 := c.tEnd
	if t3 == 0 {
		t3 = now()
	}
	if c.state == stWriting || c.t2 < c.t1 {
		// Answered before the whole request went out, or (batched
		// submissions) before the batch's submission returned.
		c.t1 = c.t2
	}
	c.ph[phaseWrite].add(c.t1 - c.t0)
	c.ph[phaseWait].add(c.t2 - c.t1)
	c.ph[phaseRead].add(t3 - c.t2)
	c.used++
	if c.werr != nil || c.state == stWriting || !keep || c.l.t.closeConn || unasked || c.rerr != nil {
		c.drop()
	}
	c.complete(withAnswer(status, ans), nil)
}
