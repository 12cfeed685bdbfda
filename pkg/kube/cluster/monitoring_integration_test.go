//go:build integration

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
)

// checkPrometheus runs Debian's Prometheus as a hostNetwork pod scraping
// the kubelet's /metrics/cadvisor over TLS with its ServiceAccount token,
// and reads the echo pod's CFS quota from it.
func checkPrometheus(t *testing.T, c *Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kubeapi.FromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := image.Ref(ctx, "prometheus", image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	objs := manifests.Monitoring(manifests.MonitoringOptions{Image: ref, Lab: true,
		Listen: fmt.Sprintf("127.0.0.1:%d", port), KubeletAddr: fmt.Sprintf("127.0.0.1:%d", c.Ports.Kubelet)})
	ns := []manifests.Object{{"apiVersion": "v1", "kind": "Namespace", "metadata": manifests.Object{"name": manifests.DefaultNamespace}}}
	if err := deploy.Apply(ctx, cl, append(ns, objs...), deploy.ApplyOptions{}); err != nil {
		t.Fatalf("deploying prometheus: %v", err)
	}
	if err := deploy.WaitAvailable(ctx, cl, objs); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"query": {`container_spec_cpu_quota{namespace="default",pod="echo",container="echo"}`}}
	u := fmt.Sprintf("http://127.0.0.1:%d/api/v1/query?%s", port, q.Encode())
	start := time.Now()
	for {
		v, err := promValue(ctx, u)
		if err == nil && v == "5000" {
			t.Logf("prometheus read the echo container's quota from cAdvisor after %s", time.Since(start))
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("prometheus never returned quota 5000 for the echo container: last %q, %v", v, err)
		case <-time.After(time.Second):
		}
	}
}

func promValue(ctx context.Context, u string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value []any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return "", err
	}
	if len(r.Data.Result) == 0 || len(r.Data.Result[0].Value) < 2 {
		return "", fmt.Errorf("no series yet")
	}
	return fmt.Sprint(r.Data.Result[0].Value[1]), nil
}
