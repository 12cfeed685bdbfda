//go:build integration

package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/stacks"
)

// checkStack2x deploys the 2x stack with the lab overlay and checks the
// whole chain: HAProxy (router) -> kube-rbac-proxy (TokenReview + SAR
// against the lab's apiserver) -> http-echo.
func checkStack2x(t *testing.T, c *Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := kubeapi.FromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	lab := &manifests.Lab{Ports: manifests.Ports{}, APIServerPort: c.Ports.APIServer}
	names := stacks.PortNames(stacks.Stack2x)
	pp, _ := freePorts(len(names))
	for i, n := range names {
		lab.Ports[n] = pp[i]
	}
	o := deploy.StackOptions{Stack: stacks.Stack2x, Lab: lab, InstallCRDs: true, Authbench: authbenchBin}
	start := time.Now()
	objs, err := deploy.Stack(ctx, cl, o)
	if err != nil {
		t.Fatalf("deploying 2x: %v", err)
	}
	t.Logf("2x deployed and available in %s", time.Since(start))
	gen := generation(t, cl, objs)
	if _, err := deploy.Stack(ctx, cl, o); err != nil {
		t.Fatalf("applying 2x again: %v", err)
	}
	if again := generation(t, cl, objs); again != gen {
		t.Errorf("a second apply changed the Deployments' generations: %v -> %v", gen, again)
	}
	defer func() {
		if t.Failed() {
			dumpPodLogs(t, c.Dir)
		}
	}()
	client := stackClient(t, cl)
	url := fmt.Sprintf("https://127.0.0.1:%d/echo", lab.Ports[stacks.HAProxy])
	for _, tc := range []struct {
		who  string
		want int
	}{{"alice", 200}, {"", 403}, {"bob", 403}} { // no token: the oauth-proxy stand-in's 403, as openshift/oauth-proxy
		token := ""
		if tc.who != "" {
			if token, err = deploy.Token(ctx, cl, manifests.DefaultNamespace, tc.who, 600); err != nil {
				t.Fatal(err)
			}
		}
		code, body := get(t, client, url, token)
		if code != tc.want || (tc.want == 200 && !strings.Contains(body, stacks.EchoText)) {
			t.Errorf("%q through the 2x stack: %d %q, want %d", tc.who, code, body, tc.want)
		}
	}
	// A limit on the oauth proxy sidecar becomes its CFS quota; removing it
	// with the JSON patch leaves no quota and a pod that still serves.
	start = time.Now()
	if err := deploy.SetCPULimit(ctx, cl, manifests.DefaultNamespace, stacks.Echo2x, stacks.OAuthProxy, "30m"); err != nil {
		t.Fatalf("setting the oauth-proxy limit: %v", err)
	}
	t.Logf("limit 30m applied and the new pod available in %s", time.Since(start))
	checkQuota(t, c.Dir, "3000")
	if err := deploy.SetCPULimit(ctx, cl, manifests.DefaultNamespace, stacks.Echo2x, stacks.OAuthProxy, ""); err != nil {
		t.Fatalf("removing the oauth-proxy limit: %v", err)
	}
	token, _ := deploy.Token(ctx, cl, manifests.DefaultNamespace, "alice", 600)
	if code, _ := get(t, client, url, token); code != 200 {
		t.Errorf("alice after removing the limit: %d, want 200", code)
	}
	if hasQuota(c.Dir, "3000") {
		t.Error("a 3000 quota remains after the limit was removed")
	}
	// The 3x stack's objects pass the real apiserver's validation and
	// admission (its HTTPRoute against the CRD).
	o3 := deploy.StackOptions{Stack: stacks.Stack3x, DryRun: true,
		OIDC: manifests.OIDC{IssuerURL: "https://127.0.0.1:1/realms/authbench", ClientID: "authbench", CookieSecret: strings.Repeat("x", 32)}}
	if _, err := deploy.Stack(ctx, cl, o3); err != nil {
		t.Errorf("server-side dry run of 3x: %v", err)
	}
	if err := deploy.Delete(ctx, cl, objs); err != nil {
		t.Errorf("deleting 2x: %v", err)
	}
}

func generation(t *testing.T, cl *deploy.Client, objs []manifests.Object) string {
	var gens []string
	for _, o := range objs {
		if manifests.Kind(o) != "Deployment" {
			continue
		}
		p, _ := deploy.Path(o, manifests.Name(o))
		_, b, err := cl.Do(context.Background(), "GET", p, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ Metadata struct{ Generation int64 } }
		json.Unmarshal(b, &d)
		gens = append(gens, fmt.Sprint(d.Metadata.Generation))
	}
	return strings.Join(gens, ",")
}

// stackClient trusts the CA of the stacks' serving Secret.
func stackClient(t *testing.T, cl *deploy.Client) *http.Client {
	_, b, err := cl.Do(context.Background(), "GET", kubeapi.Path("api", "v1", "namespaces", manifests.DefaultNamespace, "secrets", manifests.ServingSecret), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Data map[string]string }
	json.Unmarshal(b, &s)
	ca, _ := base64.StdEncoding.DecodeString(s.Data["ca.crt"])
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("no CA in the serving Secret")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

func get(t *testing.T, c *http.Client, url, token string) (int, string) {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dumpPodLogs logs the containers' logs, which the kubelet wrote under the
// /var overlay's upper layer.
func dumpPodLogs(t *testing.T, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "root", "var-upper", "log", "pods", "*", "*", "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if len(b) > 2000 {
			b = b[len(b)-2000:]
		}
		t.Logf("%s:\n%s", l, b)
	}
}
