package observe

import (
	"fmt"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/plan"
)

// promTimeout bounds one query.
const promTimeout = 30 * time.Second

// promClient is the client a plan's Prometheus is queried with: TLS
// verified against the system's CAs plus CACert, unless Insecure (as
// OpenShift's Thanos querier, served with the cluster's service CA, needs).
func promClient(p *plan.Prometheus) (*http.Client, error) {
	tc, err := capool.TLSConfig(p.CACert, p.Insecure)
	if err != nil {
		return nil, fmt.Errorf("reading prometheus cacert: %w", err)
	}
	return httpclient.New(tc, promTimeout), nil
}
