//go:build integration

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/stacks"
)

// checkStack3x deploys the 3x stack with the lab overlay: nginx (the
// gateway, rendered from the HTTPRoute) -> oauth2-proxy (ext_authz, JWT
// verification against an OIDC issuer) -> kube-rbac-proxy (TokenReview +
// SAR) -> http-echo. The OIDC issuer here is the lab apiserver's own
// ServiceAccount issuer, so the test needs no Keycloak; the lab passes
// Keycloak's realm instead.
func checkStack3x(t *testing.T, c *Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl, err := kubeapi.FromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	issuer := fmt.Sprintf("https://127.0.0.1:%d", c.Ports.APIServer)
	// OIDC discovery for anonymous clients, as on clusters whose issuer is public.
	discovery := manifests.Object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": manifests.Object{"name": "authbench-test-oidc-discovery"},
		"roleRef":  manifests.Object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:service-account-issuer-discovery"},
		"subjects": []manifests.Object{{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:unauthenticated"}}}
	if err := deploy.Apply(ctx, cl, []manifests.Object{discovery}, deploy.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(paths{c.Dir}.pki("ca.crt"))
	lab := &manifests.Lab{Ports: manifests.Ports{}, APIServerPort: c.Ports.APIServer}
	names := stacks.PortNames(stacks.Stack3x)
	pp, _ := freePorts(len(names))
	for i, n := range names {
		lab.Ports[n] = pp[i]
	}
	o := deploy.StackOptions{Stack: stacks.Stack3x, Lab: lab, InstallCRDs: true, OIDC: manifests.OIDC{
		IssuerURL: issuer, ClientID: "authbench", ClientSecret: "unused", CookieSecret: strings.Repeat("c", 32), CA: ca}}
	defer func() {
		if t.Failed() {
			dumpPodLogs(t, c.Dir)
			_, b, _ := cl.Do(context.Background(), "GET", kubeapi.Path("api", "v1", "namespaces", "authbench", "pods"), "", nil)
			var pods struct {
				Items []struct {
					Metadata struct{ Name string }
					Status   struct{ ContainerStatuses []json.RawMessage }
				}
			}
			json.Unmarshal(b, &pods)
			for _, p := range pods.Items {
				t.Logf("pod %s: %s", p.Metadata.Name, p.Status.ContainerStatuses)
			}
		}
	}()
	start := time.Now()
	if _, err := deploy.Stack(ctx, cl, o); err != nil {
		t.Fatalf("deploying 3x: %v", err)
	}
	t.Logf("3x deployed and available in %s", time.Since(start))
	client := stackClient(t, cl)
	url := fmt.Sprintf("https://127.0.0.1:%d/echo", lab.Ports[stacks.Envoy])
	for _, tc := range []struct {
		who  string
		want int
	}{{"alice", 200}, {"", 401}, {"bob", 403}} {
		token := ""
		if tc.who != "" {
			if token, err = deploy.Token(ctx, cl, manifests.DefaultNamespace, tc.who, 600, issuer, "authbench"); err != nil {
				t.Fatal(err)
			}
		}
		code, body := get(t, client, url, token)
		if code != tc.want || (tc.want == 200 && !strings.Contains(body, stacks.EchoText)) {
			t.Errorf("%q through the 3x stack: %d %q, want %d", tc.who, code, body, tc.want)
		}
	}
}
