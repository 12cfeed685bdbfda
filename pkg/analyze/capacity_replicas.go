package analyze

import "github.com/authbench/authbench/pkg/results"

// ReplicaPoint is a search's point of a replica curve: its capacity and
// the API server's reviews per second and per request over the passing
// steps at that capacity (rs are the run's results; a step's Result has
// the search's target and the step's number as its Iteration).
func ReplicaPoint(s *results.CapacitySearch, rs []results.Result) results.ReplicaPoint {
	p := results.ReplicaPoint{Target: s.Target, CapacityRPS: s.Capacity, SustainedRPS: s.Sustained}
	if s.Scale != nil {
		p.Replicas = s.Scale.Replicas
	}
	at := map[int]bool{}
	for _, st := range s.Steps {
		if st.Pass && s.Capacity > 0 && st.Offered == s.Capacity {
			at[st.N] = true
		}
	}
	var reviews, requests int64
	var window float64
	for _, r := range rs {
		if r.Target != s.Target || !at[r.Iteration] || r.APIServer == nil || r.APIServer.WindowS <= 0 {
			continue
		}
		reviews += r.APIServer.TokenReviews + r.APIServer.SubjectAccessReviews
		requests += r.Requests
		window += r.APIServer.WindowS
	}
	if window > 0 && requests > 0 {
		perS, perReq := float64(reviews)/window, float64(reviews)/float64(requests)
		p.ReviewsPerS, p.ReviewsPerRequest = &perS, &perReq
	}
	return p
}
