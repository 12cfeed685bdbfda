package sampling

import (
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/stacks"
)

// portHAProxyMetrics names, in the lab state's ports, the 2x router's
// Prometheus exporter (the catalog's haproxy-metrics port).
const portHAProxyMetrics = stacks.HAProxy + "-metrics"

// gatewayReader is the reader of component c's own metrics, when c is a
// gateway or router whose metrics port the lab's state names; every lab
// port is on 127.0.0.1.
func gatewayReader(c lab.ComponentInfo, ports map[string]int) observe.GatewayReader {
	switch {
	case c.Program == stacks.ProgramEnvoy:
		port := ports[stacks.EnvoyAdminPort(c.Name)]
		if port == 0 {
			return nil
		}
		return &observe.EnvoyAdmin{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Name: c.Name,
			Names: observe.EnvoyNames{Prefix: stacks.EnvoyStatPrefix, AuthzCluster: stacks.EnvoyClusterExtAuthz,
				UpstreamCluster: stacks.EnvoyClusterBackend}}
	case c.Program == stacks.ProgramHAProxy && c.Role == stacks.RoleRoute:
		port := ports[portHAProxyMetrics]
		if port == 0 {
			return nil
		}
		return &observe.HAProxyMetrics{URL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), Name: c.Name}
	}
	return nil
}
