package results

import "time"

// Links of the lab a fault can be set on, through its fault proxy.
const (
	// LinkAPIServer is every auth component's connection to the
	// kube-apiserver (TokenReview, SubjectAccessReview).
	LinkAPIServer = "apiserver"
	// LinkKeycloak is every connection to Keycloak, the 3x stacks'
	// identity provider (OIDC discovery, keys, token grants).
	LinkKeycloak = "keycloak"
	// LinkClient is authbench's connection to each stack's entry point.
	LinkClient = "client"
)

// Fault actions (FaultEvent.Action).
const (
	FaultSet   = "set"
	FaultClear = "clear"
)

// FaultEvent is one fault set on, or cleared from, a link of the lab, as
// the lab's fault log records it and a run copies the events of its window
// (and those still in force when it began) into run.json.
type FaultEvent struct {
	// At is when the fault proxy took the change.
	At time.Time `json:"at"`
	// Link is LinkAPIServer, LinkKeycloak or LinkClient.
	Link string `json:"link"`
	// Action is FaultSet or FaultClear. A clear removes every fault of
	// the link.
	Action string `json:"action"`
	// DelayMs is added to each round trip on the link; JitterMs varies it
	// (uniformly, ±). Zero: no delay.
	DelayMs  float64 `json:"delay_ms,omitempty"`
	JitterMs float64 `json:"jitter_ms,omitempty"`
	// Down refuses new connections and cuts open ones.
	Down bool `json:"down,omitempty"`
	// ForMs, when set, is how long the fault lasts before it clears
	// itself; a FaultClear event is logged when it does. Zero: until
	// cleared.
	ForMs float64 `json:"for_ms,omitempty"`
	// BandwidthKBps limits the link to that many KB/s each way. Zero: no
	// limit.
	BandwidthKBps int64 `json:"bandwidth_kbps,omitempty"`
}
