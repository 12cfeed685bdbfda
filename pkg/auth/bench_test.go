package auth

import "testing"

// Token is on every request's path: these show that it stays a few
// nanoseconds and allocation-free under contention, for each kind of source.
func BenchmarkToken(b *testing.B) {
	p := newFakeIdP(b)
	specs := []struct {
		name string
		spec *Spec
	}{
		{"static", &Spec{Static: true, Literal: "tok"}},
		{"file", &Spec{File: writeFile(b, "token", "tok")}},
		{"command", &Spec{Command: "echo tok"}},
		{"oidc", &Spec{OIDC: p.spec(b)}},
		{"pool", &Spec{Pool: &Pool{File: writeFile(b, "pool", "tok-1\ntok-2\ntok-3\n")}}},
		{"pool-random", &Spec{Pool: &Pool{File: writeFile(b, "pool", "tok-1\ntok-2\ntok-3\n"), Order: OrderRandom}}},
	}
	for _, s := range specs {
		b.Run(s.name, func(b *testing.B) {
			src, err := New(b.Context(), s.spec)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := src.Token(b.Context()); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
