package auth

import (
	"fmt"
	"strings"
	"testing"
)

func TestPoolOrder(t *testing.T) {
	file := writeFile(t, "pool", "# three users\ntok-a\n\n  tok-b\t\r\ntok-c\n")
	t.Setenv("AB_POOL_TOKEN", "tok-env")
	tests := []struct {
		name string
		pool Pool
		want []string // round-robin: the exact sequence; random: the set seen
	}{
		{"file round-robin", Pool{File: file}, []string{"tok-a", "tok-b", "tok-c", "tok-a", "tok-b", "tok-c"}},
		{"file and sources", Pool{File: file, Sources: []Spec{{Env: "AB_POOL_TOKEN"}, {Static: true, Literal: "tok-lit"}}},
			[]string{"tok-a", "tok-b", "tok-c", "tok-env", "tok-lit", "tok-a"}},
		{"random", Pool{File: file, Order: OrderRandom}, []string{"tok-a", "tok-b", "tok-c"}},
		{"share 1 of 2", Pool{File: file, Sources: []Spec{{Env: "AB_POOL_TOKEN"}}, Share: &PoolShare{Index: 0, Of: 2}},
			[]string{"tok-a", "tok-c", "tok-a"}},
		{"share 2 of 2", Pool{File: file, Sources: []Spec{{Env: "AB_POOL_TOKEN"}}, Share: &PoolShare{Index: 1, Of: 2}},
			[]string{"tok-b", "tok-env", "tok-b"}},
		{"share 3 of 3, random", Pool{File: file, Order: OrderRandom, Share: &PoolShare{Index: 2, Of: 3}}, []string{"tok-c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(t.Context(), &Spec{Pool: &tt.pool})
			if err != nil {
				t.Fatal(err)
			}
			if src.Kind() != "pool" {
				t.Errorf("Kind() = %q, want pool", src.Kind())
			}
			if tt.pool.Order == OrderRandom {
				seen := map[string]int{}
				for range 3000 {
					tok, _ := src.Token(t.Context())
					seen[tok]++
				}
				for _, w := range tt.want {
					if seen[w] < 1500/len(tt.want) { // expected 3000/len each
						t.Errorf("random order served %q %d times of 3000: %v", w, seen[w], seen)
					}
				}
				if len(seen) != len(tt.want) {
					t.Errorf("random order served %v, want only %v", seen, tt.want)
				}
				return
			}
			var got []string
			for range tt.want {
				tok, err := src.Token(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tok)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("tokens = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPoolErrors(t *testing.T) {
	tests := []struct {
		name    string
		pool    Pool
		wantErr string
	}{
		{"empty", Pool{}, "give a file of tokens or a list of sources"},
		{"bad order", Pool{File: "x", Order: "shuffle"}, `order "shuffle"`},
		{"nested pool", Pool{Sources: []Spec{{Pool: &Pool{File: "x"}}}}, "sources[0]: a pool cannot hold a pool"},
		{"bad member", Pool{Sources: []Spec{{Env: "A", File: "f"}}}, "sources[0]: more than one token source"},
		{"missing file", Pool{File: "/nonexistent/pool"}, "reading token pool"},
		{"no token", Pool{File: writeFile(t, "empty", "\n# nothing\n\n")}, "no token in the pool"},
		{"control character", Pool{File: writeFile(t, "bad", "S3CRET-ok\nS3CRET-\x01bad\n")}, "line 2: token contains a control character"},
		{"unset member", Pool{Sources: []Spec{{Env: "AB_POOL_UNSET_XYZ"}}}, "sources[0]: reading token from environment"},
		{"share out of range", Pool{File: "x", Share: &PoolShare{Index: 2, Of: 2}}, "share 2 of 2: want 0 <= index < of"},
		{"share of none", Pool{File: "x", Share: &PoolShare{}}, "share 0 of 0"},
		{"empty share", Pool{File: writeFile(t, "two", "S3CRET-a\nS3CRET-b\n"), Share: &PoolShare{Index: 2, Of: 3}},
			"share 3 of 3 is empty: the pool has 2 tokens, fewer than its 3 shares"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(t.Context(), &Spec{Pool: &tt.pool})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New() error = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("error quotes a token: %v", err)
			}
		})
	}
	if _, err := New(t.Context(), &Spec{Pool: &Pool{File: "x"}, Env: "A"}); err == nil ||
		!strings.Contains(err.Error(), "more than one token source (env, pool)") {
		t.Errorf("pool beside env: error = %v", err)
	}
}

// A pool and its spec print their order, size and file, never a token.
func TestPoolNoSecret(t *testing.T) {
	secrets := []string{"S3CRET-pool-1", "S3CRET-pool-2", "S3CRET-pool-lit"}
	file := writeFile(t, "pool", secrets[0]+"\n"+secrets[1]+"\n")
	spec := &Spec{Pool: &Pool{File: file, Sources: []Spec{{Static: true, Literal: secrets[2]}}}}
	src, err := New(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, secrets, src, spec, *spec)
	if got, want := fmt.Sprint(src), "3 tokens from "+file; !strings.Contains(got, want) {
		t.Errorf("Sprint(source) = %q, want it to contain %q", got, want)
	}
}

// Token is on every request's path: it must not allocate.
func TestPoolTokenAllocs(t *testing.T) {
	file := writeFile(t, "pool", "a\nb\nc\n")
	for _, order := range []string{OrderRoundRobin, OrderRandom} {
		t.Run(order, func(t *testing.T) {
			src, err := New(t.Context(), &Spec{Pool: &Pool{File: file, Order: order}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if n := testing.AllocsPerRun(1000, func() { _, _ = src.Token(ctx) }); n != 0 {
				t.Errorf("Token() allocates %v times per call, want 0", n)
			}
		})
	}
}

// parsePool against a plain reference: split on "\n", trim, skip blanks
// and comments.
func FuzzParsePool(f *testing.F) {
	for _, s := range []string{"a\nb\n", "# c\n\n x \r\n", "", "a\x00b", "\n\n#\n", "tok\ttab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parsePool(strings.NewReader(in))
		var want []string
		var wantErr bool
		for _, l := range strings.Split(in, "\n") {
			l = strings.Trim(l, " \t\r")
			if l == "" || l[0] == '#' {
				continue
			}
			if checkToken(l) != nil {
				wantErr = true
				break
			}
			want = append(want, l)
		}
		wantErr = wantErr || len(want) == 0
		if (err != nil) != wantErr {
			t.Fatalf("parsePool(%q) error = %v, want error %v", in, err, wantErr)
		}
		if err == nil && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("parsePool(%q) = %q, want %q", in, got, want)
		}
	})
}
