package deploy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
)

// Stream GETs path and returns the open body, for responses that do not
// end (pod logs with follow=true): no client timeout applies, ctx ends it.
func (c *Client) Stream(ctx context.Context, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Server+path, nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := (&http.Client{Transport: c.HTTP.Transport, CheckRedirect: httpclient.NoRedirect}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, status(b))
	}
	return resp.Body, nil
}

// ServiceAccountDir is where a pod's projected ServiceAccount token and
// the cluster's CA are mounted.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InCluster is a client with the pod's own ServiceAccount token. server
// is the API's URL; "" takes it from KUBERNETES_SERVICE_HOST and _PORT.
func InCluster(server string) (*Client, error) {
	if server == "" {
		h, p := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
		if h == "" {
			return nil, fmt.Errorf("finding the API server: KUBERNETES_SERVICE_HOST is not set")
		}
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		server = "https://" + h + ":" + p
	}
	tok, err := os.ReadFile(ServiceAccountDir + "/token")
	if err != nil {
		return nil, fmt.Errorf("reading the pod's ServiceAccount token: %w", err)
	}
	pool, err := capool.File(ServiceAccountDir+"/ca.crt", false)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's CA: %w", err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	return &Client{Server: strings.TrimSuffix(server, "/"), token: strings.TrimSpace(string(tok)),
		HTTP: &http.Client{Timeout: 30 * time.Second, Transport: httpclient.Refuse(tr), CheckRedirect: httpclient.NoRedirect}}, nil
}
