package kubeapi

import (
	"crypto/tls"
	"fmt"
	"os"
	"strings"

	"github.com/authbench/authbench/internal/capool"
)

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
	return New(server, &tls.Config{RootCAs: pool}, strings.TrimSpace(string(tok))), nil
}
