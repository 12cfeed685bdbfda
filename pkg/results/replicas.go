package results

// CapacityScale is the replica count a capacity search ran at
// (`capacity --replicas COMPONENT=N,...`): the component scaled, its
// replicas, and the CPU (and memory) limit of each replica.
type CapacityScale struct {
	Component string `json:"component"`
	Replicas  int    `json:"replicas"`
	Limit     string `json:"limit,omitempty"`
}

// ReplicaCurve is a target's capacity under the SLO at each replica count
// of one component, with the API server's review load there: the
// migration reports' "32 replicas" as a measured curve.
type ReplicaCurve struct {
	Component string `json:"component"`
	// Limit is each replica's limit during the searches ("" for none).
	Limit  string         `json:"limit,omitempty"`
	Points []ReplicaPoint `json:"points"`
}

// ReplicaPoint is one search of a ReplicaCurve.
type ReplicaPoint struct {
	Target   string `json:"target"`
	Replicas int    `json:"replicas"`
	// CapacityRPS and SustainedRPS are the search's (0: even its lowest
	// rate missed the SLO).
	CapacityRPS  float64 `json:"capacity_rps"`
	SustainedRPS float64 `json:"sustained_rps,omitempty"`
	// ReviewsPerS and ReviewsPerRequest are the API server's TokenReviews
	// and SubjectAccessReviews at capacity (the passing steps there);
	// absent when the run counted no reviews.
	ReviewsPerS       *float64 `json:"reviews_per_s,omitempty"`
	ReviewsPerRequest *float64 `json:"reviews_per_request,omitempty"`
}
