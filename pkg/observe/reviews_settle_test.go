package observe

import (
	"context"
	"testing"
)

// growing is a counter whose count rises by one on each of its first n
// reads, like an audit log still being written when the load stops.
type growing struct{ reads, n int }

func (g *growing) Source() string { return ReviewSourceAudit }

func (g *growing) Read(context.Context) (ReviewTally, error) {
	if g.reads < g.n {
		g.reads++
	}
	k := ReviewKey{Resource: "tokenreviews"}
	return ReviewTally{By: map[ReviewKey]ReviewCount{k: {N: float64(g.reads)}}}, nil
}

func TestReadSettled(t *testing.T) {
	for _, tt := range []struct {
		name string
		n    int
	}{
		{"already settled", 1},
		{"still being written", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := &growing{n: tt.n}
			got, err := ReadSettled(t.Context(), g)
			if err != nil {
				t.Fatal(err)
			}
			if n := got.By[ReviewKey{Resource: "tokenreviews"}].N; n != float64(tt.n) {
				t.Errorf("settled at %v reviews, want %d: the late ones were not waited for", n, tt.n)
			}
		})
	}
}
