package load

import "github.com/authbench/authbench/pkg/results"

// phase indexes the request phases timed like hey's "Details", plus TLS.
type phase int

const (
	phaseDNS     phase = iota // name resolution, on new connections
	phaseConnect              // TCP connect, on new connections
	phaseTLS                  // TLS handshake, on new connections
	phaseWrite                // writing the request
	phaseWait                 // request written to first response byte
	phaseRead                 // first response byte to end of body
	nPhases
)

// phaseStat accumulates one phase in nanoseconds. Phases need only mean,
// min and max, so no histogram is spent on them.
type phaseStat struct{ n, sum, min, max int64 }

func (p *phaseStat) add(d int64) {
	if p.n == 0 || d < p.min {
		p.min = d
	}
	p.max = max(p.max, d)
	p.sum += d
	p.n++
}

func (p *phaseStat) merge(o phaseStat) {
	if o.n == 0 {
		return
	}
	if p.n == 0 || o.min < p.min {
		p.min = o.min
	}
	p.max = max(p.max, o.max)
	p.sum += o.sum
	p.n += o.n
}

func (p phaseStat) result() results.Phase {
	if p.n == 0 {
		return results.Phase{}
	}
	return results.Phase{Mean: ms(float64(p.sum) / float64(p.n)), Min: ms(float64(p.min)), Max: ms(float64(p.max)), Count: p.n}
}

// phaseSet is one worker's phases.
type phaseSet [nPhases]phaseStat

func (s *phaseSet) result() results.Phases {
	return results.Phases{
		DNS: s[phaseDNS].result(), Connect: s[phaseConnect].result(), TLS: s[phaseTLS].result(),
		Write: s[phaseWrite].result(), Wait: s[phaseWait].result(), Read: s[phaseRead].result(),
	}
}

// ms converts nanoseconds to milliseconds.
func ms(ns float64) float64 { return ns / 1e6 }
