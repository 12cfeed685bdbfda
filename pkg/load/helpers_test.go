package load

import (
	"context"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// clients runs a test against every HTTP/1.1 path and net/http.
var clients = []struct {
	name string
	opts []Option
}{
	{"fast", nil},
	{"netpoll", []Option{WithIOPath(IONetpoll)}},
	{"epoll", []Option{WithIOPath(IOEpoll)}},
	{"io_uring", []Option{WithIOPath(IOUring)}},
	{"std", []Option{WithStdClient()}},
}

// paths are the HTTP/1.1 client's I/O paths this machine can force: on a
// kernel or in a sandbox without io_uring, forcing it falls back to epoll
// (TestIOUringRefused covers that on every machine).
var paths = func() []IOPath {
	p := []IOPath{IONetpoll}
	if epollAvailable() {
		p = append(p, IOEpoll)
	}
	if uringAvailable() {
		p = append(p, IOUring)
	}
	return p
}()

// countingServer answers 200 "hello" and counts requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte("hello"))
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func attacker(t *testing.T, c plan.Client, opts ...Option) *Attacker {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = plan.Duration(5 * time.Second)
	}
	a, err := NewAttacker(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func runAttack(t *testing.T, a *Attacker, r Request, s Spec, opts ...AttackOption) (*Metrics, results.Result) {
	t.Helper()
	m := a.Attack(context.Background(), r, s, opts...)
	res := m.Result()
	assertClean(t, res)
	return m, res
}

// assertClean checks what every result must satisfy: it encodes as JSON,
// holds no NaN or Inf, and its counts add up.
func assertClean(t *testing.T, r results.Result) {
	t.Helper()
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("result does not encode: %v", err)
	}
	assertFinite(t, "result", reflect.ValueOf(r))
	var answered, failed int64
	for _, n := range r.Status {
		answered += n
	}
	for _, n := range r.Errors {
		failed += n
	}
	if answered+failed != r.Requests {
		t.Errorf("status %v + errors %v != requests %d", r.Status, r.Errors, r.Requests)
	}
	if r.Successes > answered {
		t.Errorf("successes %d > answered %d", r.Successes, answered)
	}
}

func assertFinite(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("%s = %v", path, f)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			assertFinite(t, path, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			assertFinite(t, path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	}
}

// closedPort returns a URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

func sumSeries(ps []results.Point) (n, errs, auth int64) {
	for _, p := range ps {
		n, errs, auth = n+p.Requests, errs+p.Errors, auth+p.AuthErrors
	}
	return
}
