package load

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

func TestAnswerIn(t *testing.T) {
	long := "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", readBufSize) + "\r\nContent-Length: 0\r\n\r\n"
	for _, tc := range []struct {
		name, raw string
		head      bool
		ok        bool
		status    int
		keep      bool
		used      int // -1: all of raw
	}{
		{"whole", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, true, 200, true, -1},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", false, true, 200, true, -1},
		{"more than the answer", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1", false, true, 200, true, len("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")},
		{"close", "HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false, true, 403, false, -1},
		{"HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", false, true, 200, true, -1},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, true, 200, false, -1},
		{"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", true, true, 200, true, -1},
		{"204 without a length", "HTTP/1.1 204 No Content\r\n\r\n", false, true, 204, true, -1},
		{"body not yet whole", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", false, false, 0, false, 0},
		{"headers not yet whole", "HTTP/1.1 200 OK\r\nContent-Len", false, false, 0, false, 0},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false, false, 0, false, 0},
		{"no length", "HTTP/1.1 200 OK\r\n\r\nbody until close", false, false, 0, false, 0},
		{"conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", false, false, 0, false, 0},
		{"interim", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, false, 0, false, 0},
		{"malformed", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", false, false, 0, false, 0},
		{"a line the stream parser truncates", long, false, false, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, keep, used, ok := answerIn([]byte(tc.raw), tc.head, readBufSize)
			if tc.used < 0 {
				tc.used = len(tc.raw)
			}
			if ok != tc.ok || status != tc.status || keep != tc.keep || used != tc.used {
				t.Fatalf("answerIn = status %d, keep %v, used %d, ok %v; want %d, %v, %d, %v",
					status, keep, used, ok, tc.status, tc.keep, tc.used, tc.ok)
			}
		})
	}
}

// FuzzAnswerIn checks that the in-place parser and the streaming parser
// read the same answer from the same bytes wherever the in-place one
// answers at all.
func FuzzAnswerIn(f *testing.F) {
	seeds := append([]string{
		"HTTP/1.1 403 Forbidden\r\n" + GatewayDetailsHeader + ": " + string(detailsAuthzDenied) + "\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n",
	}, parseSeeds...)
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		status, ans, keep, used, ok := answerIn(data, head, readBufSize)
		if !ok {
			return
		}
		feed := &feedReader{b: data, end: errNeedMore}
		br := bufio.NewReaderSize(feed, readBufSize)
		wStatus, wAns, wKeep, err := readAnswer(br, head)
		if err != nil && !errors.Is(err, errNeedMore) {
			t.Fatalf("in place: status %d; streaming: %v\n%q", status, err, data)
		}
		if err != nil {
			t.Fatalf("in place: a whole answer; streaming: needs more\n%q", data)
		}
		wUsed := len(data) - len(feed.b) - br.Buffered()
		if status != wStatus || ans != wAns || keep != wKeep || used != wUsed {
			t.Fatalf("in place: status %d, answer %d, keep %v, used %d; streaming: %d, %d, %v, %d\n%q",
				status, ans, keep, used, wStatus, wAns, wKeep, wUsed, data)
		}
	})
}
