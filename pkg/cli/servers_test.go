package cli

import (
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// closedPort returns a URL on 127.0.0.1 where nothing listens: a port the
// kernel handed out and that was closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

// resetting returns a server that reads each request and answers with a
// TCP RST (SO_LINGER 0, then close).
func resetting(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}))
	t.Cleanup(s.Close)
	return s.URL + "/"
}

// silent returns a server that accepts requests and never answers until
// the client goes away.
func silent(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s.URL + "/"
}

// tlsServer is an HTTPS server whose certificate no system CA signed.
type tlsServer struct {
	*httptest.Server
	// caPEM is the server's self-signed certificate, to trust with --cacert.
	caPEM string
}

func newTLS(t *testing.T) *tlsServer {
	t.Helper()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("secure\n"))
	}))
	// Rejected handshakes are the point of the test, not news.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return &tlsServer{Server: s, caPEM: string(ca)}
}
