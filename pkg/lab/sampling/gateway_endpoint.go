package sampling

import (
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/stacks"
)

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
		port := ports[stacks.PortHAProxyMetrics]
		if port == 0 {
			return nil
		}
		return &observe.HAProxyMetrics{URL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), Name: c.Name}
	}
	return nil
}
