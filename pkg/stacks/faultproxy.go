package stacks

// The fault proxy's ports: its API on the port named as the component
// (Toxiproxy), and one listening port per proxy, named "toxiproxy-NAME"
// where NAME is the proxy's (FaultProxyName).
const (
	// PodPortToxiproxyAPI is Toxiproxy's own default API port.
	PodPortToxiproxyAPI = 8474
	// PortToxiproxyAPIServer and PortToxiproxyKeycloak name the ports of
	// the proxies every auth component reaches the kube-apiserver and
	// Keycloak through.
	PortToxiproxyAPIServer = Toxiproxy + "-" + "apiserver"
	PortToxiproxyKeycloak  = Toxiproxy + "-" + "keycloak"
)

// FaultProxyName names the fault proxy's proxy on a link (the link names
// are results.LinkAPIServer, LinkKeycloak and LinkClient): the link's
// name, or "LINK-STACK" for a link with one proxy per stack (the client's
// link to each stack's entry point); stack is "" for the others.
func FaultProxyName(link, stack string) string {
	if stack == "" {
		return link
	}
	return link + "-" + stack
}

// FaultProxyPort names the port the proxy FaultProxyName(link, stack)
// listens on, as in the lab state's ports.
func FaultProxyPort(link, stack string) string {
	return Toxiproxy + "-" + FaultProxyName(link, stack)
}

// ToxiproxyComponent is the lab's fault proxy, shared by every stack, the
// same definition on every platform. Its ports are its API's and the
// apiserver and keycloak links'; a client link's port
// (FaultProxyPort(results.LinkClient, stack)) exists only when `lab up`
// asks for the client link.
var ToxiproxyComponent = Component{Name: Toxiproxy, Stack: Shared, Role: RoleFaultProxy, Program: ProgramToxiproxy,
	Scheme: "http", Plays: "the network on the lab's links (latency, outages, bandwidth)",
	Ports: []Port{{Toxiproxy, PodPortToxiproxyAPI}, {PortToxiproxyAPIServer, 0}, {PortToxiproxyKeycloak, 0}}}
