package load

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestIdleCheck checks the liveness check itself, not the resend behind it:
// a quiet connection is alive; one the server closed, reset or wrote to
// is not.
func TestIdleCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(*net.TCPConn)
		want bool
	}{
		{"quiet", func(*net.TCPConn) {}, true},
		{"closed", func(c *net.TCPConn) { c.Close() }, false},
		{"reset", func(c *net.TCPConn) { c.SetLinger(0); c.Close() }, false},
		{"unsolicited bytes", func(c *net.TCPConn) { io.WriteString(c, "HTTP/1.0 408 Request Time-out\r\n\r\n") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			client, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			server, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			tc.end(server.(*net.TCPConn))
			time.Sleep(20 * time.Millisecond) // let the FIN, RST or bytes arrive
			var st idleState
			if got := st.alive(rawConn(client)); got != tc.want {
				t.Errorf("alive = %v, want %v", got, tc.want)
			}
		})
	}
}
