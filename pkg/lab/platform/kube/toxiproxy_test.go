package kube

import (
	"testing"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// The client link puts each target's URL behind its stack's proxy; the
// layers' rungs stay direct.
func TestClientTargets(t *testing.T) {
	cfg := lab.Config{Stacks: []string{stacks.Stack3x}, ClientLink: true}
	ports := map[string]int{stacks.Envoy: 9002, "toxiproxy-client-3x": 41005}
	ts := []lab.StackTarget{{Name: stacks.Target3x, Stack: stacks.Stack3x, URL: "https://127.0.0.1:9002/echo",
		Layers: []lab.Rung{{Layer: stacks.Envoy, URL: "https://127.0.0.1:9002/echo"}}}}
	got := clientTargets(cfg, ports, ts)
	if got[0].URL != "https://127.0.0.1:41005/echo" || got[0].Layers[0].URL != "https://127.0.0.1:9002/echo" {
		t.Errorf("client targets %+v", got)
	}
	cfg.ClientLink = false
	ts[0].URL = "https://127.0.0.1:9002/echo"
	if got := clientTargets(cfg, ports, ts); got[0].URL != "https://127.0.0.1:9002/echo" {
		t.Errorf("without the client link the target moved: %s", got[0].URL)
	}
}
