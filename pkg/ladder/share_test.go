package ladder

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// seen records which bearer tokens each server was sent.
type seen struct {
	mu     sync.Mutex
	tokens map[string]map[string]bool // server -> tokens
}

func (s *seen) handler(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		if s.tokens[name] == nil {
			s.tokens[name] = map[string]bool{}
		}
		s.tokens[name][tok] = true
		s.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	})
}

// TestRungsSendDisjointPoolShares measures two rungs and the end-to-end
// URL with one token pool: each must send tokens no other sent, so that
// none meets a cache another rung warmed.
func TestRungsSendDisjointPoolShares(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("tok-%02d", i))
	}
	pool := filepath.Join(t.TempDir(), "pool")
	if err := os.WriteFile(pool, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &seen{tokens: map[string]map[string]bool{}}
	front, back := serve(t, s.handler("front")), serve(t, s.handler("back"))
	e2e := serve(t, s.handler("end-to-end"))
	out, err := Run(context.Background(), Options{
		Plan: onePlan(plan.Target{Name: "pool", URL: e2e, Layers: []string{"front", "back"},
			Token: &auth.Spec{Pool: &auth.Pool{File: pool}},
			Rungs: []plan.Rung{{Layer: "front", URL: front}, {Layer: "back", URL: back}}},
			plan.Load{Duration: plan.Duration(200 * time.Millisecond), Concurrency: 4}),
		Rounds:        1,
		ProbeDuration: 200 * time.Millisecond, ProbeWarmup: 20 * time.Millisecond, Resamples: 50,
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	for server, toks := range s.tokens {
		if len(toks) == 0 || len(toks) > 10 {
			t.Errorf("%s was sent %d distinct tokens, want 1 to 10 (its share of 30)", server, len(toks))
		}
		for tok := range toks {
			if o, ok := owner[tok]; ok {
				t.Errorf("token %s was sent to both %s and %s", tok, o, server)
			}
			owner[tok] = server
		}
	}
	if len(s.tokens) != 3 {
		t.Errorf("servers that saw tokens: %d, want 3", len(s.tokens))
	}
	if !strings.Contains(strings.Join(out.Ladder.Notes, " "), "3 disjoint shares") {
		t.Errorf("ladder notes %q do not say the pool was split", out.Ladder.Notes)
	}
}
