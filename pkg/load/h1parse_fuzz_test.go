package load

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
)

// parseSeeds are responses from the cases the engine met in the field:
// HAProxy's idle 408, HTTP/1.0 keep-alive, chunked with trailers, close-
// delimited bodies, interim 1xx, HEAD and bodiless statuses, conflicting
// framing.
var parseSeeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	"HTTP/1.0 408 Request Time-out\r\nContent-Type: text/html\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n<html><body><h1>408 Request Time-out</h1></body></html>\n",
	"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2;ext=1\r\nhi\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\n\r\nbody until close",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
	"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\nConnection: Keep-Alive, close\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
	"HTTP/1.1 200 OK\nContent-Length: 1\n\nx",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
}

// FuzzReadResponse compares the engine's response parser with
// net/http.ReadResponse on the same bytes: wherever net/http reads a
// complete response, the engine must read the same status, consume the same
// bytes (framing) and make the same keep-alive decision. The engine may be
// more lenient than net/http (it skips header lines it cannot parse), never
// stricter and never differently framed.
func FuzzReadResponse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		if !bytes.HasPrefix(data, []byte("HTTP/1.")) {
			return // the engine speaks HTTP/1.x only
		}
		wantStatus, wantKeep, wantUsed, ok := stdParse(data, head)
		src := bytes.NewReader(data)
		br := bufio.NewReaderSize(src, readBufSize)
		status, keep, err := readResponse(br, head)
		used := len(data) - src.Len() - br.Buffered()
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("net/http reads status %d, the engine fails: %v\n%q", wantStatus, err, data)
		}
		if status != wantStatus {
			t.Fatalf("status %d, net/http %d\n%q", status, wantStatus, data)
		}
		if status == 101 {
			return // the connection is handed over: nothing more to compare
		}
		if used != wantUsed {
			t.Fatalf("consumed %d bytes, net/http %d\n%q", used, wantUsed, data)
		}
		if keep != wantKeep {
			t.Fatalf("keep-alive %v, net/http %v\n%q", keep, wantKeep, data)
		}
	})
}

// stdParse reads one final response with net/http as its transport does
// (interim 1xx skipped, body read to its end) and reports its status,
// whether the connection may be reused and the bytes consumed.
func stdParse(data []byte, head bool) (status int, keep bool, used int, ok bool) {
	src := bytes.NewReader(data)
	br := bufio.NewReaderSize(src, readBufSize)
	req := &http.Request{Method: http.MethodGet}
	if head {
		req.Method = http.MethodHead
	}
	for {
		res, err := http.ReadResponse(br, req)
		if err != nil || res.ProtoMajor != 1 || len(res.Proto) != len("HTTP/1.1") {
			return 0, false, 0, false // not HTTP/1.x, which is all the engine speaks
		}
		if res.StatusCode >= 100 && res.StatusCode < 200 && res.StatusCode != 101 {
			continue
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			return 0, false, 0, false
		}
		return res.StatusCode, !res.Close, len(data) - src.Len() - br.Buffered(), true
	}
}
