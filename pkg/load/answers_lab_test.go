package load

import (
	"testing"

	"github.com/authbench/authbench/pkg/stacks"
)

// The engine's header and details must be the lab gateway's.
func TestGatewayDetailsMatchTheLab(t *testing.T) {
	if GatewayDetailsHeader != stacks.GatewayDetailsHeader {
		t.Errorf("header %q, the lab's %q", GatewayDetailsHeader, stacks.GatewayDetailsHeader)
	}
	if string(detailsAuthzError) != stacks.GatewayDetailsAuthzError || string(detailsAuthzDenied) != stacks.GatewayDetailsAuthzDenied {
		t.Errorf("details %q %q, the lab's %q %q", detailsAuthzError, detailsAuthzDenied,
			stacks.GatewayDetailsAuthzError, stacks.GatewayDetailsAuthzDenied)
	}
}
