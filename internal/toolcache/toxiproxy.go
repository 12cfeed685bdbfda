package toolcache

import "github.com/authbench/authbench/pkg/stacks"

// ToxiproxyVersion is the pinned Toxiproxy, the lab's fault proxy: it sits
// on the links a fault may disturb (each auth component's connection to the
// kube-apiserver and to Keycloak, the client's to an entry point).
const ToxiproxyVersion = "v2.12.0"

const toxiproxyModule = "github.com/Shopify/toxiproxy/v2"

// toxiproxyTool builds toxiproxy-server (upstream's cmd/server) alone; its
// version is stamped into the module's root package with its "v", so that
// `toxiproxy-server -version` and the API's /version name the tag.
func toxiproxyTool() Tool {
	const target = toxiproxyModule + "/cmd/server"
	return Tool{
		Name: stacks.ProgramToxiproxy, Version: ToxiproxyVersion, Module: toxiproxyModule, Target: target,
		Wrapper:     single(stacks.ProgramToxiproxy, toxiproxyModule, ToxiproxyVersion, target),
		LDFlags:     []string{"-X " + toxiproxyModule + ".Version=" + ToxiproxyVersion},
		VersionArgs: []string{"-version"}, VersionWant: "toxiproxy-server version " + ToxiproxyVersion,
	}
}
