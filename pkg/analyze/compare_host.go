package analyze

import "fmt"

// neighbours is the busiest share of a side's host CPUs that processes
// other than the run's took in one of its iterations, from /proc/stat (see
// HostLoad.Others); ok is false when no iteration read the host.
func neighbours(s *Side) (share float64, iteration int, ok bool) {
	for _, r := range s.Results {
		if r.Host == nil || r.Host.CPUs <= 0 {
			continue
		}
		h := hostLoad(s.Run, r)
		if sh := h.Others / float64(h.CPUs); !ok || sh > share {
			share, iteration, ok = sh, r.Iteration, true
		}
	}
	return share, iteration, ok
}

// neighbourCheck warns when one side ran beside other work on its host
// and the other did not: on a shared machine the difference measured may
// be the neighbours'. Sides with Prometheus-sampled components are left
// out, since their "others" include those components.
func neighbourCheck(a, b *Side) []check {
	if remoteSampled(a) || remoteSampled(b) {
		return nil
	}
	sa, ia, oka := neighbours(a)
	sb, ib, okb := neighbours(b)
	if !oka || !okb {
		return nil
	}
	busy, quiet, share, it, qshare := a, b, sa, ia, sb
	if sb > sa {
		busy, quiet, share, it, qshare = b, a, sb, ib, sa
	}
	if share < HostOthers || qshare >= HostOthers/2 {
		return nil
	}
	return []check{{"neighbours", fmt.Sprintf("%s ran beside other work on its host: processes no sampler watched took %.0f%% of "+
		"its CPUs in iteration %d, against at most %.0f%% for %s. The difference measured may be the neighbours', "+
		"not the targets'.", busy.Label, share*100, it, qshare*100, quiet.Label), true}}
}

// remoteSampled says a side has components sampled elsewhere than locally.
func remoteSampled(s *Side) bool {
	for _, r := range s.Results {
		for _, u := range r.Components {
			if u.Source != "" && u.Source != "local" {
				return true
			}
		}
	}
	return false
}
