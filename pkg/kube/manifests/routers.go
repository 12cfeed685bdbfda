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
var servicePorts = map[string]string{Echo2x: OAuthProxy, Echo3x: KubeRBACProxy, OAuth2Proxy: OAuth2Proxy}

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

// gatewayConfig renders nginx's config from the HTTPRoute object: its
// first rule's path prefix and backendRef.
func (o Options) gatewayConfig(hr Object) Object {
	rule := hr["spec"].(Object)["rules"].([]Object)[0]
	ref := rule["backendRefs"].([]Object)[0]
	svc := str(ref["name"])
	server := fmt.Sprintf("%s.%s.svc:%v", svc, o.namespace(), ref["port"])
	if o.Lab != nil {
		server = fmt.Sprintf("127.0.0.1:%v", ref["port"])
	}
	data := map[string]string{"Namespace": o.namespace(), "Route": Name(hr),
		"PathPrefix": str(rule["matches"].([]Object)[0]["path"].(Object)["value"]),
		"Listen":     o.listen(Nginx), "Deny": o.peer(Nginx, Nginx+"-deny", true), "Server": server,
		"ExtAuthz": o.peer(OAuth2Proxy, OAuth2Proxy, false)}
	if o.Lab == nil {
		data["Deny"] = fmt.Sprintf("127.0.0.1:%d", o.port(Nginx+"-deny"))
	}
	return o.configMap(Nginx, "nginx.conf", "nginx.conf.tmpl", data)
}

func (o Options) configMap(name, key, tmpl string, data any) Object {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, tmpl, data); err != nil {
		panic(fmt.Sprintf("rendering %s: %v", tmpl, err)) // a bug in the embedded template
	}
	return obj("v1", "ConfigMap", meta(name, o.namespace(), o.Stack), Object{"data": Object{key: b.String()}})
}
