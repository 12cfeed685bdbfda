package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/manifests"
)

// SetCPULimit sets resources.limits.cpu of one container of a Deployment (e.g.
// "50m"), or removes it when cpu is "" with the migration reports' own JSON
// patch (remove /spec/template/spec/containers/N/resources/limits/cpu), then
// waits for the new pod to be available.
func SetCPULimit(ctx context.Context, c *Client, namespace, deployment, container, cpu string) error {
	d := manifests.Object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": manifests.Object{"name": deployment, "namespace": namespace}}
	p, _ := Path(d, deployment)
	idx, has, err := containerIndex(ctx, c, p, container)
	if err != nil {
		return err
	}
	var body []byte
	ct := "application/strategic-merge-patch+json"
	switch {
	case cpu != "":
		body, _ = json.Marshal(manifests.Object{"spec": manifests.Object{"template": manifests.Object{"spec": manifests.Object{
			"containers": []manifests.Object{{"name": container, "resources": manifests.Object{"limits": manifests.Object{"cpu": cpu}}}}}}}})
	case has:
		ct = "application/json-patch+json"
		body, _ = json.Marshal([]manifests.Object{{"op": "remove",
			"path": fmt.Sprintf("/spec/template/spec/containers/%d/resources/limits/cpu", idx)}})
	default:
		return nil // no limit to remove
	}
	code, resp, err := c.Do(ctx, http.MethodPatch, p, ct, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("patching the CPU limit of %s/%s container %s: %d %s", namespace, deployment, container, code, status(resp))
	}
	return WaitAvailable(ctx, c, []manifests.Object{d})
}

// containerIndex finds container in the Deployment at path, and whether it
// has a CPU limit.
func containerIndex(ctx context.Context, c *Client, path kubeapi.URLPath, container string) (int, bool, error) {
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name      string
						Resources struct{ Limits map[string]string }
					}
				}
			}
		}
	}
	code, b, err := c.Do(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return 0, false, err
	}
	if code != http.StatusOK {
		return 0, false, fmt.Errorf("reading %s: %d %s", path, code, status(b))
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return 0, false, err
	}
	for i, ct := range d.Spec.Template.Spec.Containers {
		if ct.Name == container {
			_, has := ct.Resources.Limits["cpu"]
			return i, has, nil
		}
	}
	return 0, false, fmt.Errorf("%s has no container %q", path, container)
}

// setLimits puts limits on the container running component in objs, if
// the component belongs to these objects' stack.
func setLimits(objs []manifests.Object, component string, limits map[string]string) error {
	deployment, container, ok := manifests.Workload(component)
	if !ok {
		return fmt.Errorf("limit %s: not a component of the stacks", component)
	}
	for _, o := range objs {
		if manifests.Kind(o) != "Deployment" || manifests.Name(o) != deployment {
			continue
		}
		spec := o["spec"].(manifests.Object)["template"].(manifests.Object)["spec"].(manifests.Object)
		for _, c := range spec["containers"].([]manifests.Object) {
			if c["name"] != container {
				continue
			}
			res, _ := c["resources"].(manifests.Object)
			if res == nil {
				res = manifests.Object{}
				c["resources"] = res
			}
			lim := manifests.Object{}
			for k, v := range limits {
				lim[k] = v
			}
			res["limits"] = lim
		}
	}
	return nil
}
