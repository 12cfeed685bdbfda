package stacks

// RBACObject is one object to create through the API.
type RBACObject struct {
	Path string // collection path
	Body map[string]any
}

// RBACObjects are the lab's RBAC objects: a namespace, a Role allowing get
// on services/proxy "echo" (what kube-rbac-proxy's resourceAttributes ask),
// a RoleBinding for alice and the token pool's users (bob gets none), and system:auth-delegator for the
// proxies' service accounts so they may create TokenReviews and SARs.
func RBACObjects() []RBACObject {
	meta := func(name string) map[string]any { return map[string]any{"name": name} }
	const rbacAPI = "rbac.authorization.k8s.io"
	return []RBACObject{
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
			"roleRef":  map[string]any{"apiGroup": rbacAPI, "kind": "ClusterRole", "name": "system:auth-delegator"},
			"subjects": proxySubjects()}},
	}
}

// proxySubjects are the proxies' service accounts as RBAC subjects.
func proxySubjects() []any {
	var out []any
	for _, sa := range ProxyServiceAccounts() {
		out = append(out, map[string]any{"kind": "ServiceAccount", "namespace": Namespace, "name": sa})
	}
	return out
}
