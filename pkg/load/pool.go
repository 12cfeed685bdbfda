package load

import (
	"crypto/tls"
	"net"
	"sync"
	"syscall"
)

// connPool keeps HTTP/1.1 connections between attacks, so that a warm-up
// warms the connections the measured iterations use, as net/http's idle
// pool does for the standard client.
type connPool struct {
	mu   sync.Mutex
	idle map[string][]net.Conn
}

// poolMax bounds the idle connections kept per target.
const poolMax = 1 << 14

// get returns an idle connection the server has not closed, or nil.
func (p *connPool) get(key string) net.Conn {
	var st idleState
	for {
		p.mu.Lock()
		l := p.idle[key]
		if len(l) == 0 {
			p.mu.Unlock()
			return nil
		}
		nc := l[len(l)-1]
		p.idle[key] = l[:len(l)-1]
		p.mu.Unlock()
		if st.alive(rawConn(nc)) {
			return nc
		}
		nc.Close()
	}
}

func (p *connPool) put(key string, nc net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil {
		p.idle = map[string][]net.Conn{}
	}
	if len(p.idle[key]) >= poolMax {
		nc.Close()
		return
	}
	p.idle[key] = append(p.idle[key], nc)
}

func (p *connPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.idle {
		for _, nc := range l {
			nc.Close()
		}
		delete(p.idle, k)
	}
}

// rawConn is the socket under nc (under TLS too: bytes waiting there on an
// idle connection are an alert or a close, never a response), or nil.
func rawConn(nc net.Conn) syscall.RawConn {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}
