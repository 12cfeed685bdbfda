package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/manifests"
)

// waitCRDs waits until the CRDs are Established: before that, objects of
// their kinds are refused.
func waitCRDs(ctx context.Context, c *Client) error {
	for _, crd := range manifests.CRDs() {
		p, _ := Path(crd, manifests.Name(crd))
		for !established(ctx, c, p) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for CRD %s: %w", manifests.Name(crd), ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(ctx context.Context, c *Client, path kubeapi.URLPath) bool {
	code, b, err := c.Do(ctx, "GET", path, "", nil)
	if err != nil || code != 200 {
		return false
	}
	var s struct {
		Status struct {
			Conditions []struct{ Type, Status string }
		}
	}
	json.Unmarshal(b, &s)
	for _, cd := range s.Status.Conditions {
		if cd.Type == "Established" && cd.Status == "True" {
			return true
		}
	}
	return false
}
