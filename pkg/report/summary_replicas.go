package report

// replicaCurve is the "Capacity by Replicas" section of a `capacity
// --replicas` run: each replica count's capacity under the SLO and the API
// server's review load at it, against one replica's.
func (s *summaryWriter) replicaCurve() {
	c := s.run.ReplicaCurve
	if c == nil || len(c.Points) == 0 {
		return
	}
	s.heading(2, "Capacity by Replicas")
	limit := "no limit"
	if c.Limit != "" {
		limit = c.Limit + " each"
	}
	s.printf("%s scaled out (`lab scale`), %s; one search under %s per replica count.\n\n", code(c.Component), limit, sloWords(s.run.Plan.SLO))
	s.printf("| Target | Replicas | Capacity | Sustained | × First | API Server Reviews per Second | Reviews per Request |\n")
	s.printf("|---|---|---|---|---|---|---|\n")
	first := c.Points[0].CapacityRPS
	for _, p := range c.Points {
		ratio := "—"
		if first > 0 && p.CapacityRPS > 0 {
			ratio = fmtSig(p.CapacityRPS/first, 3) + "×"
		}
		s.printf("| %s | %d | %s | %s | %s | %s | %s |\n", code(p.Target), p.Replicas, fmtRPS(p.CapacityRPS),
			fmtRPS(p.SustainedRPS), ratio, optSig(p.ReviewsPerS), optSig(p.ReviewsPerRequest))
	}
	s.printf("\nThe API server's reviews per second grow with the capacity the replicas buy (a proxy without a cache asks on every request) " +
		"and, where each replica caches, with the replicas themselves: each replica's cache misses each token on its own.\n")
}

func optSig(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmtSig(*v, 3)
}
