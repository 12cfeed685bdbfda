package pods

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/plan"
)

// create POSTs o into its collection and returns its uid. Any answer but
// a refusal counts as created (a lost answer may hide a created Job), so
// that Close cleans up what may exist, and only then.
func (e *Executor) create(ctx context.Context, o obj) (string, error) {
	kind := o["kind"].(string)
	b, _ := json.Marshal(o)
	code, resp, err := e.api.Do(ctx, http.MethodPost, collection(kind, e.o.Namespace), "application/json", bytes.NewReader(b))
	if err != nil || code/100 == 2 || code >= 500 {
		e.created = true
	}
	if err != nil {
		return "", fmt.Errorf("creating %s %s: %w", kind, e.name, err)
	}
	if code != http.StatusCreated && code != http.StatusOK {
		return "", fmt.Errorf("creating %s %s/%s: %d %s", kind, e.o.Namespace, e.name, code, kubeapi.Message(resp))
	}
	var m struct{ Metadata struct{ UID string } }
	json.Unmarshal(resp, &m)
	return m.Metadata.UID, nil
}

// patch merge-patches the named object of kind.
func (e *Executor) patch(ctx context.Context, kind string, p any) error {
	b, _ := json.Marshal(p)
	code, resp, err := e.api.Do(ctx, http.MethodPatch, objectPath(kind, e.o.Namespace, e.name),
		"application/merge-patch+json", bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("updating %s %s: %w", kind, e.name, err)
	}
	if code != http.StatusOK {
		return fmt.Errorf("updating %s %s/%s: %d %s", kind, e.o.Namespace, e.name, code, kubeapi.Message(resp))
	}
	return nil
}

// publish writes the phase into the ConfigMap.
func (e *Executor) publish(ctx context.Context, ph Phase) error {
	b, _ := json.Marshal(ph)
	return e.patch(ctx, "ConfigMap", obj{"data": obj{keyPhase: string(b)}})
}

// beat refreshes the heartbeat until ctx ends, so that idle agents of a
// killed coordinator exit.
func (e *Executor) beat(ctx context.Context) {
	for {
		e.patch(ctx, "ConfigMap", obj{"data": obj{keyHeartbeat: time.Now().UTC().Format(time.RFC3339Nano)}})
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Second):
		}
	}
}

// pod is what the coordinator reads of a pod.
type pod struct {
	Metadata struct {
		Name              string
		Annotations       map[string]string
		DeletionTimestamp *time.Time
	}
	Spec   struct{ NodeName string }
	Status struct {
		Phase             string
		Reason, Message   string
		ContainerStatuses []struct {
			State struct {
				Waiting    *struct{ Reason, Message string }
				Running    *struct{}
				Terminated *struct {
					ExitCode int
					Reason   string
				}
			}
		}
	}
}

const indexAnnotation = "batch.kubernetes.io/job-completion-index"

// listPods lists the run's pods.
func (e *Executor) listPods(ctx context.Context) ([]pod, error) {
	p := collection("Pod", e.o.Namespace).With("labelSelector", runSelector(e.id).Get("labelSelector"))
	code, b, err := e.api.Do(ctx, http.MethodGet, p, "", nil)
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("listing pods: %d %s", code, kubeapi.Message(b))
	}
	var l struct{ Items []pod }
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	return l.Items, nil
}

// Remaining lists the objects of run id still in namespace ns, as
// "Kind/name"; a test's and the cleanup's check.
func Remaining(ctx context.Context, api APIClient, ns plan.Namespace, id string) ([]string, error) {
	var left []string
	for _, c := range collections {
		code, b, err := api.Do(ctx, http.MethodGet, c.in(ns).With("labelSelector", runSelector(id).Get("labelSelector")), "", nil)
		if err != nil || code != http.StatusOK {
			return left, fmt.Errorf("listing %ss: %d %v", c.kind, code, err)
		}
		var l struct {
			Items []struct{ Metadata struct{ Name string } }
		}
		json.Unmarshal(b, &l)
		for _, it := range l.Items {
			left = append(left, c.kind+"/"+it.Metadata.Name)
		}
	}
	return left, nil
}

// APIClient is the one call the package needs of a Kubernetes client.
type APIClient interface {
	Do(ctx context.Context, method string, path kubeapi.URLPath, contentType string, body io.Reader) (int, []byte, error)
}
