package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/manifests"
)

// WaitAvailable waits until every Deployment among objs has its updated
// replicas available.
func WaitAvailable(ctx context.Context, c *Client, objs []manifests.Object) error {
	for _, o := range objs {
		if manifests.Kind(o) != "Deployment" {
			continue
		}
		p, _ := Path(o, manifests.Name(o))
		for !deploymentAvailable(ctx, c, p) {
			select {
			case <-ctx.Done():
				ns, name := manifests.Namespace(o), manifests.Name(o)
				if why := whyNotReady(ctx, c, ns, name); why != "" {
					return fmt.Errorf("waiting for Deployment %s/%s (%s): %w", ns, name, why, ctx.Err())
				}
				return fmt.Errorf("waiting for Deployment %s/%s: %w", ns, name, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

func deploymentAvailable(ctx context.Context, c *Client, path kubeapi.URLPath) bool {
	code, b, err := c.Do(ctx, http.MethodGet, path, "", nil)
	if err != nil || code != 200 {
		return false
	}
	var d struct {
		Metadata struct{ Generation int64 }
		Spec     struct{ Replicas int32 }
		Status   struct {
			ObservedGeneration                                          int64
			Replicas, UpdatedReplicas, AvailableReplicas, ReadyReplicas int32
		}
	}
	if json.Unmarshal(b, &d) != nil {
		return false
	}
	s := d.Status
	return s.ObservedGeneration >= d.Metadata.Generation && s.UpdatedReplicas == d.Spec.Replicas &&
		s.AvailableReplicas == d.Spec.Replicas && s.Replicas == d.Spec.Replicas
}

// Token asks the TokenRequest API for a short-lived token of a
// ServiceAccount (for the audiences, default the apiserver's); the caller
// keeps it in memory only.
func Token(ctx context.Context, c *Client, namespace, sa string, seconds int, audiences ...string) (string, error) {
	spec := map[string]any{"expirationSeconds": seconds}
	if len(audiences) > 0 {
		spec["audiences"] = audiences
	}
	req := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
	b, _ := json.Marshal(req)
	code, resp, err := c.Do(ctx, http.MethodPost, kubeapi.Path("api", "v1", "namespaces", namespace, "serviceaccounts", sa, "token"),
		"application/json", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	if code != http.StatusCreated && code != http.StatusOK {
		return "", fmt.Errorf("requesting a token for %s/%s: %d %s", namespace, sa, code, status(resp))
	}
	var tr struct{ Status struct{ Token string } }
	if err := json.Unmarshal(resp, &tr); err != nil {
		return "", err
	}
	return tr.Status.Token, nil
}
