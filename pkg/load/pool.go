package load

import (
	"errors"
	"net"
	"sync"
	"time"
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

func (p *connPool) get(key string) net.Conn {
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
		if alive(nc) {
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

// alive tells an idle connection the server has not closed: a read that
// would block times out at once, while a closed one returns EOF (or bytes
// nobody asked for, which make it unusable too).
func alive(nc net.Conn) bool {
	if nc.SetReadDeadline(time.Now()) != nil {
		return false
	}
	var b [1]byte
	n, err := nc.Read(b[:])
	var ne net.Error
	return n == 0 && errors.As(err, &ne) && ne.Timeout()
}
