package manifests

import (
	"fmt"

	"github.com/authbench/authbench/pkg/stacks"
)

// Where the serving Secret is mounted in the router's and the gateways'
// pods.
const tlsDir = "/etc/authbench/tls"

// mountedTLS is the serving Secret's files as a pod mounts them.
var mountedTLS = stacks.TLSFiles{Cert: tlsDir + "/tls.crt", Key: tlsDir + "/tls.key",
	Bundle: tlsDir + "/bundle.pem", CA: tlsDir + "/ca.crt"}

// servicePorts maps each backend Service to the component its port is.
var servicePorts = map[string]string{stacks.Echo2x: stacks.OAuthProxy, stacks.Echo3x: stacks.KubeRBACProxy,
	stacks.OAuth2Proxy: stacks.OAuth2Proxy, stacks.Echo3xOAuth: stacks.KubeRBACProxyOAuth,
	stacks.KubeAuthProxyOAuth: stacks.KubeAuthProxyOAuth}

// routerConfig renders HAProxy's config from the Route object: the router
// sends the route's traffic to the Service it names.
func (o Options) routerConfig(route Object) Object {
	spec := route["spec"].(Object)
	svc := str(spec["to"].(Object)["name"])
	r := stacks.Router{Route: o.namespace() + "/" + Name(route), Termination: str(spec["tls"].(Object)["termination"]),
		Listen: o.listen(stacks.HAProxy), Backend: "route_" + svc, Server: o.peer(svc, servicePorts[svc], false), TLS: mountedTLS,
		Metrics: o.listen(stacks.PortHAProxyMetrics)}
	if o.runtimeAPI() {
		r.RuntimeSocket = RouterRuntimeDir + "/" + RouterSocket
	}
	return o.configMap(stacks.HAProxy, stacks.ConfigRouter, stacks.ConfigRouter, r)
}

// gatewayConfig renders Envoy's config for gateway name from the
// HTTPRoute object hr: its first rule's path prefix and backendRef, and
// HTTP ext_authz to the stack's ext_authz Service (over TLS when that
// serves TLS) with the options' timeout and failure mode.
func (o Options) gatewayConfig(name string, hr Object) Object {
	rule := hr["spec"].(Object)["rules"].([]Object)[0]
	ref := rule["backendRefs"].([]Object)[0]
	svc := str(ref["name"])
	server := fmt.Sprintf("%s.%s.svc:%v", svc, o.namespace(), ref["port"])
	if o.Lab != nil {
		server = fmt.Sprintf("127.0.0.1:%v", ref["port"])
	}
	c, _ := stacks.Lookup(name)
	st, _ := stacks.Get(c.Stack)
	ext, _ := st.ByRole(stacks.RoleExtAuthz)
	a := o.Authz.withDefaults()
	gw := stacks.Gateway{Name: name, Stack: c.Stack, Route: o.namespace() + "/" + Name(hr),
		PathPrefix: str(rule["matches"].([]Object)[0]["path"].(Object)["value"]),
		Listen:     stacks.MustEndpoint(o.listen(name)),
		// The admin interface stays on the pod's (or the host's) loopback.
		Admin:    stacks.Endpoint{Host: stacks.Loopback, Port: o.port(stacks.EnvoyAdminPort(name))},
		Backend:  stacks.MustEndpoint(server),
		ExtAuthz: stacks.MustEndpoint(o.peer(ext.Name, ext.Name, false)), ExtAuthzTLS: ext.Scheme == "https",
		Timeout: a.Timeout, FailureMode: a.FailureMode, TLS: mountedTLS, AccessLog: "/dev/stdout"}
	if o.Lab != nil && o.Lab.EDSDir != "" {
		gw.EDSDir = EDSMountDir
	}
	return o.configMap(name, stacks.ConfigGateway, stacks.ConfigGateway, gw)
}

// gatewayObjects are the gateway's ConfigMap (rendered from hr),
// Deployment and Service.
func (o Options) gatewayObjects(name string, hr Object) []Object {
	c := o.container(name, stacks.ProgramEnvoy, append([]string{"-c", "/etc/authbench/gateway/" + stacks.ConfigGateway}, stacks.EnvoyArgs...),
		mount("gateway", "/etc/authbench/gateway"), mount("tls", tlsDir))
	vols := []Object{configVolume("gateway", name), secretVolume("tls", ServingSecret)}
	if o.Lab != nil && o.Lab.EDSDir != "" {
		// A host directory, not a ConfigMap: Envoy sees a file moved into
		// it at once, where a ConfigMap's update waits for the kubelet's sync.
		c["volumeMounts"] = append(c["volumeMounts"].([]Object), mount("eds", EDSMountDir))
		vols = append(vols, Object{"name": "eds", "hostPath": Object{"path": GatewayEDSDir(o.Lab.EDSDir, name), "type": "Directory"}})
	}
	return []Object{o.gatewayConfig(name, hr),
		o.deployment(name, "", []Object{o.ready(c, name)}, vols...),
		o.service(name, name, o.port(name))}
}

// configMap is the ConfigMap name holding, under key, config rendered
// from data.
func (o Options) configMap(name, key, config string, data any) Object {
	b, err := stacks.Render(config, data)
	if err != nil {
		panic(err) // a bug in the embedded template or its data
	}
	return obj("v1", "ConfigMap", meta(name, o.namespace(), o.Stack), Object{"data": Object{key: string(b)}})
}
