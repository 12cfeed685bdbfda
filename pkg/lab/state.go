package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/results"
)

// Files of the lab directory.
const (
	StateFile     = "state.json"   // written by the supervisor; see State
	RequestFile   = "request.json" // what `lab up` asked for; read by the supervisor
	SupervisorLog = "logs/supervisor.log"
	ScenarioFile  = "scenario.yaml" // written when the lab is ready
	// AuditLog is the kube-apiserver's audit log: every TokenReview and
	// SubjectAccessReview with its caller (what observe.NewAuditReviews
	// counts).
	AuditLog     = "logs/kube-apiserver-audit.log"
	stateVersion = 1
)

// Phases of a lab, as in State.Phase.
const (
	PhaseStarting = "starting"
	PhaseReady    = "ready"
	PhaseFailed   = "failed"
	PhaseStopping = "stopping"
	PhaseStopped  = "stopped"
)

// Statuses of a component, as in ComponentInfo.Status.
const (
	StatusStarting = "starting"
	StatusRunning  = "running"
	StatusExited   = "exited"
)

// State is state.json: what the supervisor started, where, and how it went.
type State struct {
	Version int    `json:"version"`
	Dir     string `json:"dir"`
	// Phase is starting, ready, failed, stopping or stopped.
	Phase string `json:"phase"`
	// Error says why the lab failed, with the failing component's log tail.
	Error      string          `json:"error,omitempty"`
	Supervisor int             `json:"supervisor_pid"`
	Started    time.Time       `json:"started"`
	ReadyAt    *time.Time      `json:"ready_at,omitempty"`
	Stacks     []string        `json:"stacks"`
	Cgroups    string          `json:"cgroups,omitempty"` // "v1", "v2" or why none
	Ports      map[string]int  `json:"ports"`
	Components []ComponentInfo `json:"components"`
	Targets    []StackTarget   `json:"targets,omitempty"`
	// CACert is the lab CA every TLS listener's certificate chains to.
	CACert string   `json:"ca_cert"`
	Notes  []string `json:"notes,omitempty"`
	// TokenPool describes the pool of static tokens, when the lab issued
	// one (--token-pool).
	TokenPool *TokenPool `json:"token_pool,omitempty"`
	// Prometheus is the lab's own Prometheus (a kube lab's, scraping the
	// kubelet's cAdvisor), through which its scenario samples the pods.
	// Empty on the processes platform.
	Prometheus *LabPrometheus `json:"prometheus,omitempty"`
	// Authz is the 3x gateways' ext_authz settings (absent without a 3x
	// stack).
	Authz *Authz `json:"authz,omitempty"`
	// Scaled is the last `lab scale` the lab applied (absent before one).
	Scaled *Scaled `json:"scaled,omitempty"`
	// Links are the links the lab runs a fault proxy on, with their
	// proxies (none on a platform without a fault proxy).
	Links []LinkInfo `json:"links,omitempty"`
	// Faults are the faults in force on the links, as the fault proxy
	// reports them: filled by Lab.Status for a ready lab, never stored.
	Faults []ActiveFault `json:"faults,omitempty"`
	// FaultsError says why the faults could not be read (Lab.Status).
	FaultsError string `json:"faults_error,omitempty"`
}

// Scaled is how the last `lab scale` request went: its generation (as
// written in ScaleFile), the replica counts wanted, and why it failed.
type Scaled struct {
	Generation int            `json:"generation"`
	Replicas   map[string]int `json:"replicas,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// Link returns the named link of the state.
func (s *State) Link(name string) (LinkInfo, bool) {
	for _, l := range s.Links {
		if l.Name == name {
			return l, true
		}
	}
	return LinkInfo{}, false
}

// Authz is how the lab's gateways call their ext_authz service: the
// call's timeout (a Go duration) and what a failed or timed-out call
// gets (stacks.AuthzFailDeny: Envoy's 403; stacks.AuthzFailAllow: let
// through).
type Authz struct {
	Timeout     string `json:"timeout"`
	FailureMode string `json:"failure_mode"`
}

// LabPrometheus is how a lab's scenario reads its Prometheus.
type LabPrometheus struct {
	URL string `json:"url" yaml:"url"`
	// Settle is how long after a window to wait for the last scrape
	// (scrape interval plus cAdvisor's housekeeping).
	Settle string `json:"settle,omitempty" yaml:"settle,omitempty"`
}

// ComponentInfo is one process of the lab, as the sampler and reports need it.
type ComponentInfo struct {
	Name  string `json:"name"`
	Stack string `json:"stack"` // "2x", "3x" or "shared"
	// Role is what the component does in the architecture ("route",
	// "oauth-proxy", "gateway", "ext-authz", "rbac-proxy", "backend", ...).
	Role string `json:"role"`
	// Program is the real software and Plays what it stands in for, when it
	// stands in for something (kube-rbac-proxy plays kube-auth-proxy).
	Program string `json:"program"`
	Plays   string `json:"plays,omitempty"`
	// Exe is the program's path, to recognise the process later.
	Exe     string `json:"exe,omitempty"`
	Version string `json:"version,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// Cgroup is the group's path, as cgroup.Open accepts it.
	Cgroup string `json:"cgroup,omitempty"`
	// URL is the component's own entry point.
	URL    string `json:"url,omitempty"`
	Limit  string `json:"limit,omitempty"`
	Log    string `json:"log,omitempty"`
	Status string `json:"status,omitempty"` // starting, running, exited
	// StartupS is how long the component took to become ready.
	StartupS float64 `json:"startup_s,omitempty"`
	// Namespace, Pod (a regular expression following the Deployment's
	// pods) and Container locate a kube lab's component for the
	// Prometheus sampler. Empty on the processes platform.
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
	// Workload names the Deployment and container, for findings.
	Workload string `json:"workload,omitempty"`
	// Standin is what a stand-in does, for status and run.json.
	Standin *results.Standin `json:"standin,omitempty"`
	// ReplicaOf names the component this is a replica of (`lab scale`),
	// for its replicas beyond the first; empty for the component itself.
	ReplicaOf string `json:"replica_of,omitempty"`
}

// Replicas counts the running replicas of a scalable component in the
// state: the component itself and its ReplicaOf entries.
func (s *State) Replicas(name string) int {
	n := 0
	for _, c := range s.Components {
		if c.Name == name || c.ReplicaOf == name {
			n++
		}
	}
	return n
}

// AddReplica puts replica c after the last of base and its replicas, so
// that the state lists a component's replicas together, in their order.
func (s *State) AddReplica(base string, c ComponentInfo) {
	at := len(s.Components)
	for i, x := range s.Components {
		if x.Name == base || x.ReplicaOf == base {
			at = i + 1
		}
	}
	s.Components = append(s.Components[:at], append([]ComponentInfo{c}, s.Components[at:]...)...)
}

// StackTarget is one stack as a benchmark target: its outer URL, its layers
// from the client inwards, and each layer's own entry point.
type StackTarget struct {
	Name   string `json:"name"`
	Stack  string `json:"stack"`
	URL    string `json:"url"`
	Layers []Rung `json:"layers"`
}

// Rung is one layer's entry point.
type Rung struct {
	Layer string `json:"layer" yaml:"layer"`
	URL   string `json:"url" yaml:"url"`
}

// ErrAlreadyRunning reports a lab directory whose lab is running.
var ErrAlreadyRunning = lock.ErrAlreadyRunning

// ErrNotRunning reports a lab directory without a running lab.
var ErrNotRunning = errors.New("no lab is running")

// ReadState reads dir/state.json.
func ReadState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading lab state in %s: %w", dir, ErrNotRunning)
	}
	if err != nil {
		return nil, fmt.Errorf("reading lab state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading lab state %s: %w", filepath.Join(dir, StateFile), err)
	}
	return &s, nil
}

// WriteState replaces dir/state.json atomically.
func WriteState(dir string, s *State) error {
	s.Version = stateVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding lab state: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, StateFile), append(b, '\n'), 0o644)
}

// Record converts the state to the results.Lab record.
func (s *State) Record() *results.Lab {
	l := &results.Lab{Dir: s.Dir, Stacks: s.Stacks, Notes: s.Notes}
	for _, c := range s.Components {
		role := c.Role
		if c.Plays != "" {
			role += " (" + c.Program + " plays " + c.Plays + ")"
		}
		l.Components = append(l.Components, results.LabComponent{
			Name: c.Name, Role: role, Version: c.Version, URL: c.URL, Limit: c.Limit, Workload: c.Workload, Standin: c.Standin, ReplicaOf: c.ReplicaOf,
		})
	}
	return l
}

// Component returns the named component of the state.
func (s *State) Component(name string) (ComponentInfo, bool) {
	for _, c := range s.Components {
		if c.Name == name {
			return c, true
		}
	}
	return ComponentInfo{}, false
}

// TokenPool is the pool a lab issued: how many users, which, and the file
// holding their tokens (never the tokens).
type TokenPool struct {
	Users int    `json:"users"`
	First string `json:"first"`
	Last  string `json:"last"`
	File  string `json:"file"`
}
