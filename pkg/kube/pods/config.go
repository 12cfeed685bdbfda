package pods

import (
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// SecretDir is where the run's Secret is mounted in every pod.
const SecretDir = "/etc/authbench/run"

// ConfigFile is the agent's configuration inside the Secret.
const ConfigFile = "config.json"

// Config is what an agent needs, delivered in the run's Secret because
// headers, bodies and token-source inputs may be secret.
type Config struct {
	// Run is the run's id (the value of the run label).
	Run string `json:"run"`
	// Namespace and ConfigMap name where phases are published.
	Namespace plan.Namespace  `json:"namespace"`
	ConfigMap plan.ObjectName `json:"configmap"`
	// Server is the API URL the pod reaches; "" takes the in-cluster one.
	Server string `json:"server,omitempty"`
	// Client is the HTTP client, its files rewritten to SecretDir.
	Client plan.Client `json:"client"`
	// Targets in the plan's order.
	Targets []TargetConfig `json:"targets"`
}

// TargetConfig is one target as the agent sends it.
type TargetConfig struct {
	Name   string      `json:"name"`
	Method string      `json:"method,omitempty"`
	URL    string      `json:"url"`
	Host   string      `json:"host,omitempty"`
	Header [][2]string `json:"header,omitempty"` // unredacted: only ever in the Secret
	Body   []byte      `json:"body,omitempty"`
	// Token is the pod's own token source: a file in SecretDir (a token
	// the coordinator got once), an OIDC grant whose credentials are
	// files in SecretDir, or the pod's projected ServiceAccount token.
	Token *auth.Spec `json:"token,omitempty"`
}

// Phase is what the coordinator publishes in the ConfigMap.
type Phase struct {
	// Seq numbers phases from 1; agents act on each new Seq once.
	Seq int `json:"seq"`
	// Kind is "load" or "probe".
	Kind   string `json:"kind"`
	Target int    `json:"target"`
	// Prober is the pod index that sends a probe phase's one request.
	Prober int `json:"prober,omitempty"`
	// Shares has one entry per pod index.
	Shares []Share `json:"shares,omitempty"`
	// Start is the common start time.
	Start time.Time `json:"start"`
	// Abort asks the pods to stop phase Seq now and report what they
	// measured (Ctrl-C).
	Abort bool `json:"abort,omitempty"`
	// Done tells the agents to exit.
	Done bool `json:"done,omitempty"`
}

// ConfigMap keys.
const (
	keyPhase     = "phase"
	keyHeartbeat = "heartbeat" // RFC 3339 time of the coordinator's last beat
)

// Phase kinds.
const (
	PhaseLoad  = "load"
	PhaseProbe = "probe"
)
