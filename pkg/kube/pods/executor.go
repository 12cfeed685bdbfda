package pods

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// Options configure an Executor.
type Options struct {
	// Execution is the plan's execution block, validated by the plan
	// (plan.Validate): the pods, kubeconfig, context, namespace (default
	// "default"), image (required here), resources, node selector and
	// spread. HostNetwork nil is false: the pods get their own network.
	plan.Execution
	// PullPolicy is the container's imagePullPolicy. Default IfNotPresent.
	PullPolicy string
	// PullSecret names a Secret of the namespace (kubernetes.io/dockerconfigjson)
	// the kubelet pulls Image with. Default none: the node's or the
	// service account's credentials.
	PullSecret plan.ObjectName
	// ReadyTimeout bounds the wait for every pod to be ready; pods not
	// ready by then are left out and the run is partial. Default 3m.
	ReadyTimeout time.Duration
	// StartDelay is how far ahead of now a phase's common start is set,
	// so every pod has seen it in time. Default 2s.
	StartDelay time.Duration
	// Log receives progress messages. Default io.Discard.
	Log io.Writer
	// Seccomp is the pods' seccomp profile. Zero sets none: the node's
	// default applies (Unconfined unless the kubelet runs with
	// seccompDefault), and with it whether the engine may use io_uring.
	Seccomp Seccomp
}

// Executor runs each phase of the orchestrator in the pods of one Job.
// It implements runner.Executor.
type Executor struct {
	o      Options
	api    kubeAPI
	id     string          // the run label's value
	name   plan.ObjectName // every object's name
	server string          // the API URL as the pods reach it
	mat    *material
	pods   []*podState
	events chan event
	seq    int
	stop   context.CancelFunc // ends followers and the heartbeat
	closed bool
	// created is set once a create may have made an object: Close
	// deletes nothing before that.
	created bool
}

var _ runner.Executor = (*Executor)(nil)

// New checks the options and connects to the cluster; nothing is created
// before Prepare.
func New(o Options) (*Executor, error) {
	if o.Pods < 1 {
		return nil, fmt.Errorf("--pods must be at least 1, not %d", o.Pods)
	}
	if o.Image == "" {
		return nil, fmt.Errorf("running load in pods needs authbench's image (--image)")
	}
	o.Namespace = o.Namespace.Or(plan.DefaultNamespace)
	if o.PullPolicy == "" {
		o.PullPolicy = "IfNotPresent"
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 3 * time.Minute
	}
	if o.StartDelay <= 0 {
		o.StartDelay = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if err := o.Seccomp.check(); err != nil {
		return nil, err
	}
	kc := kubeapi.KubeconfigPath(o.Kubeconfig)
	api, err := kubeapi.FromKubeconfigContext(kc, o.Context)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 4)
	rand.Read(id)
	e := &Executor{o: o, api: api, id: hex.EncodeToString(id), events: make(chan event, 4096), stop: func() {}}
	e.name = plan.MustObjectName("authbench-" + e.id)
	e.server = podServer(api.Server, o.hostNetwork())
	return e, nil
}

// hostNetwork runs the pods in the node's network namespace (the lab's
// rule: traffic only on 127.0.0.1).
func (o Options) hostNetwork() bool { return o.HostNetwork != nil && *o.HostNetwork }

// podServer is the API URL for the pods: a loopback server (the lab) is
// reached as it is from hostNetwork pods; otherwise the in-cluster
// address.
func podServer(server string, hostNetwork bool) string {
	u, err := url.Parse(server)
	if err != nil || !hostNetwork {
		return ""
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() || u.Hostname() == "localhost" {
		return server
	}
	return ""
}

// ID is the value of the run label on every object of this executor.
func (e *Executor) ID() string { return e.id }

// Namespace is where the objects are.
func (e *Executor) Namespace() plan.Namespace { return e.o.Namespace }

// Secrets are the secret values passed to the pods, for leak checks.
func (e *Executor) Secrets() []string {
	if e.mat == nil {
		return nil
	}
	return e.mat.tokens
}

// Prepare resolves the token sources, creates the Job and its objects,
// and waits until every pod is ready (or the ready timeout, after which
// the pods that are ready run the load and the run is partial).
func (e *Executor) Prepare(ctx context.Context, client plan.Client, targets []plan.Target) error {
	m, err := buildMaterial(ctx, targets, client)
	if err != nil {
		return err
	}
	e.mat = m
	m.cfg.Run, m.cfg.Namespace, m.cfg.ConfigMap, m.cfg.Server = e.id, e.o.Namespace, e.name, e.server
	cfg, _ := json.Marshal(m.cfg)
	m.files[ConfigFile] = cfg
	if err := e.createAll(ctx); err != nil {
		return err
	}
	bg, stop := context.WithCancel(context.Background())
	e.stop = stop
	go e.beat(bg)
	fmt.Fprintf(e.o.Log, "pods: Job %s/%s with %d pods of %s (label %s=%s)\n", e.o.Namespace, e.name, e.o.Pods, e.o.Image, RunLabel, e.id)
	return e.waitReady(ctx, bg)
}

// createAll creates the suspended Job, its dependents, then resumes it.
func (e *Executor) createAll(ctx context.Context) error {
	uid, err := e.create(ctx, e.jobObject())
	if err != nil {
		return err
	}
	for _, o := range e.dependents(uid, e.mat.files) {
		if _, err := e.create(ctx, o); err != nil {
			return err
		}
	}
	return e.patch(ctx, "Job", obj{"spec": obj{"suspend": false}})
}
