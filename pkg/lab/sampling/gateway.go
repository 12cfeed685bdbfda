package sampling

import (
	"context"
	"net/url"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
)

// LabGateways are the readers of the lab's gateways' own metrics (Envoy's
// admin stats in 3.x, the router's HAProxy exporter in 2.x), each under
// the host of the stack target it fronts. A lab whose state names no
// metrics endpoint gives none.
func LabGateways(ctx context.Context, dir string, platforms ...lab.Platform) observe.GatewayReaders {
	st, err := lab.Open(dir, platforms...).State(ctx)
	if err != nil {
		return nil
	}
	return gatewaysOf(st)
}

// gatewaysOf maps each stack target's outer host to its stack's gateway
// reader.
func gatewaysOf(st *lab.State) observe.GatewayReaders {
	byStack := map[string]observe.GatewayReader{}
	for _, c := range st.Components {
		if r := gatewayReader(c, st.Ports); r != nil {
			byStack[c.Stack] = r
		}
	}
	out := observe.GatewayReaders{}
	for _, t := range st.Targets {
		r := byStack[t.Stack]
		u, err := url.Parse(t.URL)
		if r == nil || err != nil {
			continue
		}
		out[u.Host] = r
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
