package manifests

import (
	"bytes"
	"embed"
	"fmt"
	"text/template"
)

//go:embed templates
var templateFS embed.FS

var templates = template.Must(template.ParseFS(templateFS, "templates/*.tmpl"))

// servicePorts maps each backend Service to the component its port is.
var servicePorts = map[string]string{Echo2x: OAuthProxy, Echo3x: KubeRBACProxy, OAuth2Proxy: OAuth2Proxy,
	Echo3xOAuth: KubeRBACProxyOAuth, KubeAuthProxyOAuth: KubeAuthProxyOAuth}

// routerConfig renders HAProxy's config from the Route object: the router
// sends the route's traffic to the Service it names.
func (o Options) routerConfig(route Object) Object {
	spec := route["spec"].(Object)
	svc := str(spec["to"].(Object)["name"])
	data := map[string]string{"Namespace": o.namespace(), "Route": Name(route),
		"Termination": str(spec["tls"].(Object)["termination"]),
		"Listen":      o.listen(HAProxy), "Backend": "route_" + svc, "Server": o.peer(svc, servicePorts[svc], false)}
	return o.configMap(HAProxy, "haproxy.cfg", "haproxy.cfg.tmpl", data)
}

// gateway is an nginx playing Envoy: the gateway gw (its Deployment,
// container, ConfigMap and Service are named gw) serving the HTTPRoute hr
// with HTTP ext_authz to the Service extAuthz (over TLS when extTLS).
type gateway struct {
	name, extAuthz string
	extTLS         bool
}

// gatewayConfig renders nginx's config from the HTTPRoute object: its
// first rule's path prefix and backendRef.
func (o Options) gatewayConfig(gw gateway, hr Object) Object {
	rule := hr["spec"].(Object)["rules"].([]Object)[0]
	ref := rule["backendRefs"].([]Object)[0]
	svc := str(ref["name"])
	server := fmt.Sprintf("%s.%s.svc:%v", svc, o.namespace(), ref["port"])
	if o.Lab != nil {
		server = fmt.Sprintf("127.0.0.1:%v", ref["port"])
	}
	data := map[string]any{"Namespace": o.namespace(), "Route": Name(hr), "Gateway": gw.name,
		"PathPrefix": str(rule["matches"].([]Object)[0]["path"].(Object)["value"]),
		"Listen":     o.listen(gw.name), "Deny": fmt.Sprintf("127.0.0.1:%d", o.port(gw.name+"-deny")), "Server": server,
		"ExtAuthz": o.peer(gw.extAuthz, gw.extAuthz, false), "ExtAuthzTLS": gw.extTLS}
	return o.configMap(gw.name, "nginx.conf", "nginx.conf.tmpl", data)
}

// gatewayObjects are the gateway's ConfigMap (rendered from hr),
// Deployment and Service.
func (o Options) gatewayObjects(gw gateway, hr Object) []Object {
	c := o.container(gw.name, "nginx", []string{"-e", "stderr", "-c", "/etc/authbench/gateway/nginx.conf"},
		mount("gateway", "/etc/authbench/gateway"), mount("tls", "/etc/authbench/tls"))
	return []Object{o.gatewayConfig(gw, hr),
		o.deployment(gw.name, "", []Object{o.ready(c, gw.name)}, configVolume("gateway", gw.name), secretVolume("tls", ServingSecret)),
		o.service(gw.name, gw.name, o.port(gw.name))}
}

func (o Options) configMap(name, key, tmpl string, data any) Object {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, tmpl, data); err != nil {
		panic(fmt.Sprintf("rendering %s: %v", tmpl, err)) // a bug in the embedded template
	}
	return obj("v1", "ConfigMap", meta(name, o.namespace(), o.Stack), Object{"data": Object{key: b.String()}})
}
