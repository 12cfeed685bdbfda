package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errMalformed marks a response this client cannot parse.
var errMalformed = errors.New("malformed HTTP response")

// readResponse reads one response and discards its body. It skips interim
// 1xx responses and reports whether the connection may be reused.
func readResponse(br *bufio.Reader, head bool) (status int, keep bool, err error) {
	status, _, keep, err = readAnswer(br, head)
	return status, keep, err
}

// readAnswer is readResponse that also returns the gateway's class of the
// response (GatewayDetailsHeader).
func readAnswer(br *bufio.Reader, head bool) (status int, a answer, keep bool, err error) {
	for {
		status, minor, err := readStatus(br)
		if err != nil {
			return 0, 0, false, err
		}
		h, err := readHeaders(br)
		if err != nil {
			return status, 0, false, err
		}
		if status >= 100 && status < 200 && status != 101 {
			continue
		}
		keep = !h.close && (minor >= 1 || h.keepAlive)
		if minor == 0 {
			h.te = false // HTTP/1.0 has no transfer codings (RFC 9112 6.1); net/http ignores it too
		}
		if h.badLength && !(h.te && h.chunked) {
			return status, h.answer, false, fmt.Errorf("%w: bad Content-Length", errMalformed)
		}
		switch {
		case status == 101:
			return status, h.answer, false, nil // the connection now speaks something else
		case head || status == 204 || status == 304:
		case h.te && h.chunked:
			err = discardChunked(br)
		case h.te || h.length < 0:
			// Delimited by the connection's close (RFC 9112 6.3).
			return status, h.answer, false, discard(br)
		default:
			_, err = br.Discard(int(h.length))
			err = eofIsUnexpected(err)
		}
		return status, h.answer, keep && err == nil, err
	}
}

func readStatus(br *bufio.Reader) (status, minor int, err error) {
	line, err := readLine(br)
	if err != nil {
		return 0, 0, err
	}
	return parseStatusLine(line)
}

// parseStatusLine reads "HTTP/1.1 200 OK"; extra spaces before the code
// are tolerated, as net/http tolerates them.
func parseStatusLine(line []byte) (status, minor int, err error) {
	if len(line) < 9 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, 0, fmt.Errorf("%w: bad status line", errMalformed)
	}
	if line[7] < '0' || line[7] > '9' {
		return 0, 0, fmt.Errorf("%w: bad status line", errMalformed)
	}
	minor = int(line[7] - '0')
	code := bytes.TrimLeft(line[9:], " ")
	if len(code) < 3 || (len(code) > 3 && code[3] != ' ') {
		return 0, 0, fmt.Errorf("%w: bad status code", errMalformed)
	}
	for _, c := range code[:3] {
		if c < '0' || c > '9' {
			return 0, 0, fmt.Errorf("%w: bad status code", errMalformed)
		}
		status = status*10 + int(c-'0')
	}
	return status, minor, nil
}

// headers are the only response headers the client acts on.
type headers struct {
	length    int64 // -1: none
	te        bool
	chunked   bool
	close     bool
	keepAlive bool
	badLength bool // unparsable or conflicting Content-Length
	answer    answer
}

func readHeaders(br *bufio.Reader) (headers, error) {
	h := headers{length: -1}
	for {
		line, err := readLine(br)
		if err != nil {
			return h, err
		}
		if len(line) == 0 {
			return h, nil
		}
		h.add(line)
	}
}

// add takes one header line into h.
func (h *headers) add(line []byte) {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return // obsolete line folding or junk: nothing we act on
	}
	name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
	switch {
	case asciiEqualFold(name, "content-length"):
		// A bad one matters only if it frames the body: chunked
		// framing overrides it.
		n, ok := parseDecimal(value)
		if !ok || (h.length >= 0 && n != h.length) {
			h.badLength = true
		}
		h.length = n
	case asciiEqualFold(name, "transfer-encoding"):
		h.te = true
		h.chunked = lastTokenIs(value, "chunked")
	case asciiEqualFold(name, gatewayDetailsLower):
		h.answer = answerOf(value)
	case asciiEqualFold(name, "connection"):
		h.close = h.close || hasToken(value, "close")
		h.keepAlive = h.keepAlive || hasToken(value, "keep-alive")
	}
}

func discardChunked(br *bufio.Reader) error {
	for {
		line, err := readLine(br)
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, ok := parseHex(bytes.TrimSpace(line))
		if !ok {
			return fmt.Errorf("%w: bad chunk size", errMalformed)
		}
		if size == 0 {
			for { // trailers
				line, err := readLine(br)
				if err != nil || len(line) == 0 {
					return err
				}
			}
		}
		if _, err := br.Discard(int(size)); err != nil {
			return eofIsUnexpected(err)
		}
		if line, err := readLine(br); err != nil || len(line) != 0 {
			if err == nil {
				err = fmt.Errorf("%w: bad chunk end", errMalformed)
			}
			return err
		}
	}
}

// readLine returns a line without its CRLF. A line longer than the buffer
// is consumed whole and returned truncated: no header we act on is that long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil {
			return nil, eofIsUnexpected(err)
		}
		return []byte("x-truncated:"), nil
	}
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// eofIsUnexpected keeps a bare EOF (a stale keep-alive connection, which is
// retried) apart from a response cut short.
func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether a comma-separated header value holds tok.
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var part []byte
		part, v, _ = bytes.Cut(v, []byte(","))
		if asciiEqualFold(bytes.TrimSpace(part), tok) {
			return true
		}
	}
	return false
}

func lastTokenIs(v []byte, tok string) bool {
	if i := bytes.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return asciiEqualFold(bytes.TrimSpace(v), tok)
}

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(c)
	}
	return n, true
}
