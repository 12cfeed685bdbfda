package load

import "bytes"

// answerIn parses an answer held whole in b: the event loops' common case,
// where one read brings a whole answer. It reads b in place, where the
// streaming parser (readAnswer) copies it through a bufio.Reader first.
// It declines (ok false) whatever it does not frame the plain way: an
// answer not yet whole, an interim 1xx or a 101, a transfer coding, no or a
// bad Content-Length, a malformed status line, or a line of max bytes or
// more (the streaming parser, with a buffer of max, truncates those). The
// caller then hands the same bytes to readAnswer, so that one parser's
// rules decide every answer this one declines; FuzzAnswerIn checks that
// the two agree wherever this one answers.
func answerIn(b []byte, head bool, max int) (status int, a answer, keep bool, n int, ok bool) {
	line, rest, ok := cutLine(b, max)
	if !ok {
		return 0, 0, false, 0, false
	}
	status, minor, err := parseStatusLine(line)
	if err != nil || status < 200 {
		return 0, 0, false, 0, false
	}
	h := headers{length: -1}
	for {
		if line, rest, ok = cutLine(rest, max); !ok {
			return 0, 0, false, 0, false
		}
		if len(line) == 0 {
			break
		}
		h.add(line)
	}
	body := h.length
	if head || status == 204 || status == 304 {
		body = 0
	}
	if h.te || h.badLength || body < 0 || int64(len(rest)) < body {
		return 0, 0, false, 0, false
	}
	keep = !h.close && (minor >= 1 || h.keepAlive)
	return status, h.answer, keep, len(b) - len(rest) + int(body), true
}

// cutLine splits the first line off b, without its LF or CRLF, as
// readLine does.
func cutLine(b []byte, max int) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || i+1 >= max {
		return nil, nil, false
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest, true
}
