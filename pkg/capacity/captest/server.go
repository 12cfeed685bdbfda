// Package captest serves HTTP with a known capacity, for testing capacity
// searches against the real engine: a fixed number of workers, each
// taking a fixed service time per request, so the capacity is exactly
// workers / service time (4 workers × 5 ms = 800 req/s).
package captest

import (
	"net/http"
	"net/http/httptest"
	"time"
)

// Server is an HTTP server on 127.0.0.1 (port 0) of known capacity.
// Requests beyond the workers wait in line, first come first served, as
// in a server's accept queue.
type Server struct {
	*httptest.Server
	// Workers and Service fix the capacity.
	Workers int
	Service time.Duration
	free    chan *worker
}

// worker keeps its own schedule: each request ends Service after the
// later of its arrival and the previous request's scheduled end. A late
// wake-up (a busy host) is then made up on the next request instead of
// lowering the capacity.
type worker struct{ next time.Time }

// New starts a server of workers workers taking service per request.
// Close it when done.
func New(workers int, service time.Duration) *Server {
	s := &Server{Workers: workers, Service: service, free: make(chan *worker, workers)}
	for range workers {
		s.free <- &worker{}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Capacity is the server's throughput when every worker is busy, in
// requests per second.
func (s *Server) Capacity() float64 { return float64(s.Workers) / s.Service.Seconds() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	var wk *worker
	select {
	case wk = <-s.free:
	case <-r.Context().Done():
		return
	}
	start := arrival
	if wk.next.After(start) {
		start = wk.next
	}
	wk.next = start.Add(s.Service)
	time.Sleep(time.Until(wk.next))
	s.free <- wk
	_, _ = w.Write([]byte("ok\n"))
}
