package deploy

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

// stubCluster is an apiserver stand-in that records each request's method
// and path and answers 200, reached through a kubeconfig; a GET finds an
// object labelled with stack label (none when "").
func stubCluster(t *testing.T, label string) (*Client, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.Method == http.MethodGet && label != "" {
			fmt.Fprintf(w, `{"metadata":{"uid":"u-1","labels":{%q:%q}}}`, manifests.LabelStack, label)
			return
		}
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: u, user: {token: t}}]
`, srv.URL, base64.StdEncoding.EncodeToString(ca))), 0o600)
	c, err := kubeapi.FromKubeconfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(seen) }
}

// DeleteStack needs no OIDC settings (3x used to demand them), deletes
// each stack's own objects and keeps the shared ones.
func TestDeleteStack(t *testing.T) {
	for _, tc := range []struct {
		stack string
		want  []string
	}{
		{stacks.Stack3x, []string{"/apis/apps/v1/namespaces/ns/deployments/oauth2-proxy", "/apis/gateway.networking.k8s.io/v1/namespaces/ns/httproutes/http-echo-3x"}},
		{stacks.Stack3xOAuth, []string{"/apis/apps/v1/namespaces/ns/deployments/kube-auth-proxy-oauth",
			"/apis/apps/v1/namespaces/ns/deployments/envoy-oauth", "/api/v1/namespaces/ns/serviceaccounts/kube-rbac-proxy-oauth",
			"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/authbench-kube-auth-proxy-oauth-ns-auth-delegator"}},
		{stacks.Stack2x, []string{"/apis/route.openshift.io/v1/namespaces/ns/routes/http-echo-2x"}},
	} {
		t.Run(tc.stack, func(t *testing.T) {
			c, seen := stubCluster(t, tc.stack)
			if err := DeleteStack(context.Background(), c, StackOptions{Stack: tc.stack, Namespace: plan.MustNamespace("ns")}); err != nil {
				t.Fatal(err)
			}
			got := seen()
			for _, w := range tc.want {
				if !slices.Contains(got, "DELETE "+w) {
					t.Errorf("no DELETE %s among %v", w, got)
				}
			}
			for _, g := range got {
				if !strings.HasPrefix(g, "DELETE ") && !strings.HasPrefix(g, "GET ") || strings.HasSuffix(g, "/namespaces/ns") ||
					strings.Contains(g, manifests.ServingSecret) || strings.HasSuffix(g, "/alice") {
					t.Errorf("%s: a shared object or a non-delete request", g)
				}
			}
		})
	}
}

// DeleteStack deletes only objects that carry the stack's own label: an
// object of the same name that another stack, or no stack, owns is read
// and left alone, and the error names it.
func TestDeleteStackLeavesForeignObjects(t *testing.T) {
	for _, label := range []string{"", stacks.Stack3x} {
		t.Run("label "+label, func(t *testing.T) {
			c, seen := stubCluster(t, label)
			err := DeleteStack(context.Background(), c, StackOptions{Stack: stacks.Stack2x, Namespace: plan.MustNamespace("ns")})
			if err == nil || !strings.Contains(err.Error(), "left alone") || !strings.Contains(err.Error(), "Route http-echo-2x") {
				t.Errorf("got %v, want the foreign objects named", err)
			}
			for _, g := range seen() {
				if !strings.HasPrefix(g, "GET ") {
					t.Errorf("%s: only reads were due", g)
				}
			}
		})
	}
}
