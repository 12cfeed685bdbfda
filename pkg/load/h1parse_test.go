package load

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

func TestReadResponse(t *testing.T) {
	const next = "HTTP/1.1 204 No Content\r\n\r\n"
	for _, tc := range []struct {
		name   string
		raw    string
		head   bool
		status int
		keep   bool
		err    error // errors.Is target; nil: success
		rest   bool  // the next response must still be readable
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, 200, true, nil, true},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n", false, 200, true, nil, true},
		{"chunked uppercase hex", "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, CHUNKED\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", false, 200, true, nil, true},
		{"no length reads to close", "HTTP/1.1 200 OK\r\n\r\nhello world", false, 200, false, nil, false},
		{"connection close", "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno", false, 401, false, nil, true},
		{"connection keep-alive, close token", "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", false, 200, false, nil, true},
		{"http/1.0 default close", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 200, false, nil, true},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", false, 200, true, nil, true},
		{"head ignores length", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true, 200, true, nil, true},
		{"304 has no body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 1000\r\n\r\n", false, 304, true, nil, true},
		{"100 continue skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", false, 201, true, nil, true},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false, 200, true, nil, true},
		{"reason phrase optional", "HTTP/1.1 503\r\nContent-Length: 0\r\n\r\n", false, 503, true, nil, true},
		{"long header line", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 3*readBufSize) + "\r\nContent-Length: 2\r\n\r\nok", false, 200, true, nil, true},
		{"truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", false, 200, false, io.ErrUnexpectedEOF, false},
		{"truncated headers", "HTTP/1.1 200 OK\r\nContent-Le", false, 200, false, io.ErrUnexpectedEOF, false},
		{"truncated chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", false, 200, false, io.ErrUnexpectedEOF, false},
		{"bad status line", "HTTP/2 200\r\n\r\n", false, 0, false, errMalformed, false},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", false, 0, false, errMalformed, false},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, 200, false, errMalformed, false},
		{"conflicting content-length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", false, 200, false, errMalformed, false},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, 200, false, errMalformed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.raw
			if tc.rest {
				raw += next
			}
			br := bufio.NewReaderSize(strings.NewReader(raw), readBufSize)
			status, keep, err := readResponse(br, tc.head)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || status != tc.status || keep != tc.keep {
				t.Fatalf("got %d keep=%v err=%v, want %d keep=%v", status, keep, err, tc.status, tc.keep)
			}
			if tc.rest {
				if status, _, err := readResponse(br, false); status != 204 || err != nil {
					t.Errorf("the response was not consumed exactly: next read %d %v", status, err)
				}
			}
		})
	}
}

func TestRender(t *testing.T) {
	a := attacker(t, plan.Client{})
	tg, err := newTarget(a, Request{Method: "GET", URL: "http://127.0.0.1:9/a?b=c", Header: map[string][]string{"X-B": {"2"}, "X-A": {"1"}, "Connection": {"upgrade"}}, Token: staticToken("t")})
	if err != nil {
		t.Fatal(err)
	}
	want := "GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:9\r\nUser-Agent: authbench\r\nX-A: 1\r\nX-B: 2\r\nAuthorization: Bearer tok\r\n\r\n"
	if got := string(tg.render(nil, "tok")); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, bad := range []Request{
		{URL: "http://127.0.0.1/", Header: map[string][]string{"X-A": {"1\r\nX-Injected: 1"}}},
		{URL: "http://127.0.0.1/", Header: map[string][]string{"Bad Name": {"1"}}},
		{URL: "http://127.0.0.1/", Method: "GET /x"},
		{URL: "ftp://127.0.0.1/"},
	} {
		if _, err := newTarget(a, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
