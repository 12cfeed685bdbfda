package deploy

import "github.com/authbench/authbench/internal/kubeapi"

// Client talks to one cluster's API with the credential of a kubeconfig
// (kubeapi.FromKubeconfig) or of a pod's ServiceAccount (kubeapi.InCluster).
type Client = kubeapi.Client
