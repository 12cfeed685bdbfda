//go:build integration

package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// startToxiproxy runs the pinned toxiproxy-server on a free loopback port
// until the test ends.
func startToxiproxy(t *testing.T) *Client {
	t.Helper()
	bin := testenv.NeedTools(t, toolcache.ToolPath, "`authbench lab install` builds it", stacks.ProgramToxiproxy)[0]
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", strconv.Itoa(port))
	cmd.Env = []string{"LOG_LEVEL=warn"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := New("127.0.0.1:" + strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := c.Version(context.Background()); err == nil {
			return c
		} else if time.Now().After(deadline) {
			t.Fatalf("toxiproxy-server not ready: %v", err)
		}
	}
}

// echoServer answers each line with the same line, on a loopback port.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					if _, err := conn.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// What the emulation covers: a delay fault adds its delay to each round
// trip of data (a request and its answer), but not to the TCP handshake,
// which the client makes with the local proxy; a bandwidth limit slows a
// connection's bytes; --down refuses new connections and cuts open ones.
func TestDelayCoversDataRoundTripsNotTheHandshake(t *testing.T) {
	c := startToxiproxy(t)
	ctx := context.Background()
	if err := c.Populate(ctx, []Proxy{{Name: "client-2x", Listen: "127.0.0.1:0", Upstream: echoServer(t), Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	ps, err := c.Proxies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addr := ps["client-2x"].Listen
	const delay = 60 * time.Millisecond
	if err := Apply(ctx, c, []string{"client-2x"}, lab.Fault{Link: "client", Delay: delay}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	conn, err := net.Dial("tcp", addr)
	connect := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	for i := range 3 {
		t0 = time.Now()
		if _, err := conn.Write([]byte("ping\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if rtt := time.Since(t0); rtt < delay || rtt > delay+delay/2 {
			t.Errorf("round trip %d through a %s delay: %s", i+1, delay, rtt)
		}
	}
	if connect > delay/2 {
		t.Errorf("TCP connect took %s: the handshake is with the local proxy and should not see the %s delay", connect, delay)
	}
	checkBandwidth(t, c, r, conn)
	if err := Apply(ctx, c, []string{"client-2x"}, lab.Fault{Link: "client", Down: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadString('\n'); err == nil {
		t.Error("an open connection survived --down")
	}
	if _, err := net.Dial("tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("connecting to a link that is down: %v, want connection refused", err)
	}
	if err := Clear(ctx, c, []string{"client-2x"}); err != nil {
		t.Fatal(err)
	}
	conn2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("after Clear: %v", err)
	}
	conn2.Close()
}

// checkBandwidth sends 50 KB through a 100 KB/s limit each way: the echo
// takes at least half a second.
func checkBandwidth(t *testing.T, c *Client, r *bufio.Reader, conn net.Conn) {
	t.Helper()
	if err := Apply(context.Background(), c, []string{"client-2x"}, lab.Fault{Link: "client", BandwidthKBps: 100}); err != nil {
		t.Fatal(err)
	}
	line := append(bytes.Repeat([]byte("x"), 50_000), '\n')
	t0 := time.Now()
	go func() { _, _ = conn.Write(line) }()
	got, err := r.ReadBytes('\n')
	if err != nil || len(got) != len(line) {
		t.Fatalf("echo through the bandwidth limit: %d bytes, %v", len(got), err)
	}
	if d := time.Since(t0); d < 450*time.Millisecond {
		t.Errorf("50 KB through 100 KB/s took %s, want at least 0.5 s", d)
	}
}
