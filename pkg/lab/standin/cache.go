package standin

import (
	"crypto/sha256"
	"sync"
	"time"
)

// maxEntries bounds a cache; beyond it, expired entries are swept first,
// then the whole cache is dropped (the lab's token pool stays far below).
const maxEntries = 1 << 16

// cache keeps answers per key for a TTL chosen per answer (0: not kept),
// and lets concurrent misses of one key share one call, as the caches of
// k8s.io/apiserver that the real proxies use do. A nil cache keeps nothing
// and coalesces nothing: every lookup is a call.
type cache[V any] struct {
	mu       sync.Mutex
	ttl      func(V) time.Duration
	entries  map[[32]byte]entry[V]
	inflight map[[32]byte]*call[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

type call[V any] struct {
	done chan struct{}
	v    V
	err  error
}

func newCache[V any](ttl func(V) time.Duration) *cache[V] {
	return &cache[V]{ttl: ttl, entries: map[[32]byte]entry[V]{}, inflight: map[[32]byte]*call[V]{}}
}

// get answers key from the cache, or from fetch (once for all concurrent
// askers). Keys are hashed: no token is kept in memory as a key.
func (c *cache[V]) get(key string, fetch func() (V, error)) (V, error) {
	if c == nil {
		return fetch()
	}
	k := sha256.Sum256([]byte(key))
	now := time.Now()
	c.mu.Lock()
	if e, ok := c.entries[k]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.v, nil
	}
	if cl, ok := c.inflight[k]; ok {
		c.mu.Unlock()
		<-cl.done
		return cl.v, cl.err
	}
	cl := &call[V]{done: make(chan struct{})}
	c.inflight[k] = cl
	c.mu.Unlock()
	cl.v, cl.err = fetch()
	c.mu.Lock()
	delete(c.inflight, k)
	if ttl := c.ttl(cl.v); cl.err == nil && ttl > 0 {
		c.sweep(now)
		c.entries[k] = entry[V]{v: cl.v, expires: time.Now().Add(ttl)}
	}
	c.mu.Unlock()
	close(cl.done)
	return cl.v, cl.err
}

// sweep makes room (c.mu held).
func (c *cache[V]) sweep(now time.Time) {
	if len(c.entries) < maxEntries {
		return
	}
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	if len(c.entries) >= maxEntries {
		clear(c.entries)
	}
}
