package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// rbacObject is one object to create through the API.
type rbacObject struct {
	path string // collection path
	body map[string]any
}

// rbacObjects are the lab's RBAC objects: a namespace, a Role allowing get
// on services/proxy "echo" (what kube-rbac-proxy's resourceAttributes ask),
// a RoleBinding for alice and the token pool's users (bob gets none), and system:auth-delegator for the
// proxies' service accounts so they may create TokenReviews and SARs.
func rbacObjects() []rbacObject {
	meta := func(name string) map[string]any { return map[string]any{"name": name} }
	const rbacAPI = "rbac.authorization.k8s.io"
	return []rbacObject{
		{"/api/v1/namespaces", map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": meta(Namespace)}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/" + Namespace + "/roles", map[string]any{
			"apiVersion": rbacAPI + "/v1", "kind": "Role", "metadata": meta("echo-reader"),
			"rules": []any{map[string]any{
				"apiGroups": []string{""}, "resources": []string{"services/proxy"},
				"resourceNames": []string{EchoService}, "verbs": []string{"get"}}}}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/" + Namespace + "/rolebindings", map[string]any{
			"apiVersion": rbacAPI + "/v1", "kind": "RoleBinding", "metadata": meta("echo-reader-alice"),
			"roleRef": map[string]any{"apiGroup": rbacAPI, "kind": "Role", "name": "echo-reader"},
			"subjects": []any{map[string]any{"apiGroup": rbacAPI, "kind": "User", "name": UserAlice},
				map[string]any{"apiGroup": rbacAPI, "kind": "Group", "name": GroupTokenPool}}}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
			"apiVersion": rbacAPI + "/v1", "kind": "ClusterRoleBinding", "metadata": meta("authbench-proxies-auth-delegator"),
			"roleRef": map[string]any{"apiGroup": rbacAPI, "kind": "ClusterRole", "name": "system:auth-delegator"},
			"subjects": []any{
				map[string]any{"kind": "ServiceAccount", "namespace": Namespace, "name": "oauth-proxy"},
				map[string]any{"kind": "ServiceAccount", "namespace": Namespace, "name": "kube-rbac-proxy"},
				map[string]any{"kind": "ServiceAccount", "namespace": Namespace, "name": CompKubeAuthProxyOAuth},
				map[string]any{"kind": "ServiceAccount", "namespace": Namespace, "name": CompKubeRBACProxyOAuth}}}},
	}
}

// applyRBAC creates the RBAC objects with plain JSON POSTs as the admin; an
// object that exists already is fine.
func applyRBAC(ctx context.Context, c *http.Client, api, adminTokenFile string) error {
	tok, err := readSecret(adminTokenFile)
	if err != nil {
		return err
	}
	for _, o := range rbacObjects() {
		if err := postObject(ctx, c, api+o.path, tok, o.body); err != nil {
			return fmt.Errorf("creating RBAC objects: %w", err)
		}
	}
	return nil
}

func postObject(ctx context.Context, c *http.Client, url, token string, obj map[string]any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
		return nil
	}
	return fmt.Errorf("POST %s (%s): status %d: %s", url, obj["kind"], resp.StatusCode, bytes.TrimSpace(msg))
}
