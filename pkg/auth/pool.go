package auth

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
)

// Orders of a pool (Pool.Order).
const (
	OrderRoundRobin = "round-robin"
	OrderRandom     = "random"
)

// maxPoolLine bounds one line of a pool file: a large JWT is a few KiB.
const maxPoolLine = 1 << 20

// Pool hands out many tokens, one per request, as real traffic carries many
// users' tokens: a server's per-token cache then misses, which one repeated
// token never shows. It holds no token itself.
type Pool struct {
	// File holds one token per line; blank lines and lines starting with
	// "#" are skipped. Read once, when the source is built.
	File string `json:"file,omitempty" yaml:"file,omitempty"`
	// Sources are further token sources of any kind but pool, each asked
	// for its current token in turn (a command's or an OIDC grant's tokens
	// stay fresh). Default: none; File and Sources may be combined.
	Sources []Spec `json:"sources,omitempty" yaml:"sources,omitempty"`
	// Order is OrderRoundRobin or OrderRandom. Default OrderRoundRobin.
	Order string `json:"order,omitempty" yaml:"order,omitempty"`
	// Share keeps a disjoint part of the pool: targets measured side by
	// side then each send tokens none of the others sent, and each meets
	// caches no other has warmed. Default nil: the whole pool.
	Share *PoolShare `json:"share,omitempty" yaml:"share,omitempty"`
}

// PoolShare is one of Of disjoint parts of a pool: the tokens whose
// position (the file's tokens, then the sources) modulo Of is Index.
type PoolShare struct {
	Index int `json:"index" yaml:"index"`
	Of    int `json:"of" yaml:"of"`
}

// keep reports whether the pool's i-th token belongs to the share.
func (s *PoolShare) keep(i int) bool { return s == nil || i%s.Of == s.Index }

// Validate reports the first impossible value in the pool.
func (p *Pool) Validate() error {
	if p.File == "" && len(p.Sources) == 0 {
		return errors.New("pool: give a file of tokens or a list of sources")
	}
	switch p.Order {
	case "", OrderRoundRobin, OrderRandom:
	default:
		return fmt.Errorf("pool: order %q must be %q or %q", p.Order, OrderRoundRobin, OrderRandom)
	}
	if s := p.Share; s != nil && (s.Of < 1 || s.Index < 0 || s.Index >= s.Of) {
		return fmt.Errorf("pool: share %d of %d: want 0 <= index < of", s.Index, s.Of)
	}
	for i := range p.Sources {
		if p.Sources[i].Pool != nil {
			return fmt.Errorf("pool: sources[%d]: a pool cannot hold a pool", i)
		}
		if err := p.Sources[i].Validate(); err != nil {
			return fmt.Errorf("pool: sources[%d]: %w", i, err)
		}
	}
	return nil
}

func (p *Pool) order() string {
	if p.Order == "" {
		return OrderRoundRobin
	}
	return p.Order
}

// poolSource serves its members' tokens in turn. Token is one atomic add
// (round-robin) or one per-thread random draw (random) and an interface
// call: no lock, no allocation.
type poolSource struct {
	members []TokenSource
	n       uint64
	random  bool
	next    atomic.Uint64
	desc    string
}

func newPool(ctx context.Context, p *Pool, o options) (*poolSource, error) {
	var members []TokenSource
	if p.File != "" {
		toks, err := readPoolFile(p.File)
		if err != nil {
			return nil, err
		}
		for _, t := range toks {
			members = append(members, &staticSource{kind: "static", tok: t})
		}
	}
	for i := range p.Sources {
		src, err := build(ctx, &p.Sources[i], o)
		if err != nil {
			return nil, fmt.Errorf("token pool: sources[%d]: %w", i, err)
		}
		members = append(members, src)
	}
	members, err := share(members, p.Share)
	if err != nil {
		return nil, err
	}
	desc := p.order() + ", " + strconv.Itoa(len(members)) + " tokens"
	if p.File != "" {
		desc += " from " + p.File
	}
	if p.Share != nil {
		desc += fmt.Sprintf(" (share %d of %d)", p.Share.Index+1, p.Share.Of)
	}
	return &poolSource{members: members, n: uint64(len(members)),
		random: p.order() == OrderRandom, desc: desc}, nil
}

// share keeps the members of s; an empty share is an error, since a
// target without tokens could not send.
func share(members []TokenSource, s *PoolShare) ([]TokenSource, error) {
	if s == nil {
		return members, nil
	}
	var kept []TokenSource
	for i, m := range members {
		if s.keep(i) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("token pool: share %d of %d is empty: the pool has %d tokens, fewer than its %d shares",
			s.Index+1, s.Of, len(members), s.Of)
	}
	return kept, nil
}

// Token returns the next member's token.
func (s *poolSource) Token(ctx context.Context) (string, error) {
	var i uint64
	if s.random {
		i = rand.Uint64N(s.n)
	} else {
		i = (s.next.Add(1) - 1) % s.n
	}
	return s.members[i].Token(ctx)
}

// Kind is "pool".
func (s *poolSource) Kind() string { return "pool" }

// Len is the number of tokens in the pool.
func (s *poolSource) Len() int { return len(s.members) }

// Format names the order, size and file, never a token.
func (s *poolSource) Format(f fmt.State, _ rune) { describe(f, "pool", s.desc) }

// readPoolFile reads a pool file; errors name the file and line, never the
// token.
func readPoolFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading token pool: %w", err)
	}
	defer f.Close()
	toks, err := parsePool(f)
	if err != nil {
		return nil, fmt.Errorf("reading token pool %s: %w", path, err)
	}
	return toks, nil
}

// parsePool splits r into tokens: one per line, surrounding spaces and tabs
// trimmed, blank lines and "#" comments skipped. A line with a control
// character inside is an error naming the line.
func parsePool(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxPoolLine)
	var toks []string
	for line := 1; sc.Scan(); line++ {
		b := bytes.Trim(sc.Bytes(), " \t\r")
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		tok := string(b)
		if err := checkToken(tok); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		toks = append(toks, tok)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxPoolLine)
		}
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("no token in the pool")
	}
	return toks, nil
}
