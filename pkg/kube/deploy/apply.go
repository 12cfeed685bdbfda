package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/manifests"
)

// FieldManager owns the fields authbench applies.
const FieldManager = "authbench"

// resource is where a kind lives in the REST API.
type resource struct {
	plural     string
	namespaced bool
}

// resources are the kinds the stacks use.
var resources = map[string]resource{
	"Namespace": {"namespaces", false}, "CustomResourceDefinition": {"customresourcedefinitions", false},
	"ClusterRoleBinding": {"clusterrolebindings", false}, "ClusterRole": {"clusterroles", false},
	"Secret": {"secrets", true}, "ConfigMap": {"configmaps", true}, "ServiceAccount": {"serviceaccounts", true},
	"Service": {"services", true}, "Deployment": {"deployments", true}, "Role": {"roles", true},
	"RoleBinding": {"rolebindings", true}, "Route": {"routes", true}, "HTTPRoute": {"httproutes", true},
}

// Path is the REST path of o (its collection when name is empty).
func Path(o manifests.Object, name string) (kubeapi.URLPath, error) {
	r, ok := resources[manifests.Kind(o)]
	if !ok {
		return kubeapi.URLPath{}, fmt.Errorf("kind %s is not one deploy knows", manifests.Kind(o))
	}
	group, version, grouped := strings.Cut(manifests.APIVersion(o), "/")
	p := kubeapi.Path("api", group)
	if grouped {
		p = kubeapi.Path("apis", group, version)
	}
	if r.namespaced {
		p = p.Join("namespaces", manifests.Namespace(o))
	}
	p = p.Join(r.plural)
	if name != "" {
		p = p.Join(name)
	}
	return p, nil
}

// ApplyOptions change Apply.
type ApplyOptions struct {
	DryRun bool // server-side dry run: validated and admitted, not stored
}

// Apply applies objs in order with server-side apply. The error names the
// object and the apiserver's message.
func Apply(ctx context.Context, c *Client, objs []manifests.Object, o ApplyOptions) error {
	for _, obj := range objs {
		if err := applyOne(ctx, c, obj, o); err != nil {
			return err
		}
	}
	return nil
}

func applyOne(ctx context.Context, c *Client, obj manifests.Object, o ApplyOptions) error {
	p, err := Path(obj, manifests.Name(obj))
	if err != nil {
		return err
	}
	p = p.With("fieldManager", FieldManager).With("force", "true")
	if o.DryRun {
		p = p.With("dryRun", "All")
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	code, resp, err := c.Do(ctx, http.MethodPatch, p, "application/apply-patch+yaml", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("applying %s %s: %w", manifests.Kind(obj), manifests.Name(obj), err)
	}
	if code/100 != 2 {
		return fmt.Errorf("applying %s %s/%s: %d %s", manifests.Kind(obj), manifests.Namespace(obj), manifests.Name(obj), code, status(resp))
	}
	return nil
}

// status is the message of a metav1.Status body, or the body.
func status(b []byte) string {
	var s struct{ Message string }
	if json.Unmarshal(b, &s) == nil && s.Message != "" {
		return s.Message
	}
	return string(b)
}
