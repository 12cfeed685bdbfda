package deploy

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/pkg/kube/manifests"
)

func TestPath(t *testing.T) {
	tests := []struct {
		obj  manifests.Object
		want string
	}{
		{manifests.Object{"apiVersion": "v1", "kind": "Secret", "metadata": manifests.Object{"name": "s", "namespace": "n"}}, "/api/v1/namespaces/n/secrets/s"},
		{manifests.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": manifests.Object{"name": "d", "namespace": "n"}}, "/apis/apps/v1/namespaces/n/deployments/d"},
		{manifests.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": manifests.Object{"name": "n"}}, "/api/v1/namespaces/n"},
		{manifests.Object{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": manifests.Object{"name": "r", "namespace": "n"}}, "/apis/route.openshift.io/v1/namespaces/n/routes/r"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got, err := Path(tc.obj, manifests.Name(tc.obj))
			if err != nil || got.String() != tc.want {
				t.Errorf("Path = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := Path(manifests.Object{"kind": "Pod", "metadata": manifests.Object{"name": "p"}}, "p"); err == nil {
		t.Error("an unknown kind has a path")
	}
}

// TestApplyIsServerSideApply checks the request Apply sends, against a
// stub apiserver reached through a kubeconfig with a token.
func TestApplyIsServerSideApply(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %s %s %s", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Authorization")))
		mu.Unlock()
		if !strings.Contains(string(b), `"kind":"ConfigMap"`) {
			w.WriteHeader(400)
		}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: u, user: {token: secret-token}}]
`, srv.URL, base64.StdEncoding.EncodeToString(ca))), 0o600)
	c, err := kubeapi.FromKubeconfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	cm := manifests.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": manifests.Object{"name": "x", "namespace": "n"}}
	if err := Apply(context.Background(), c, []manifests.Object{cm}, ApplyOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	want := "PATCH /api/v1/namespaces/n/configmaps/x dryRun=All&fieldManager=authbench&force=true application/apply-patch+yaml Bearer secret-token"
	if len(seen) != 1 || seen[0] != want {
		t.Errorf("requests %q, want %q", seen, want)
	}
}
