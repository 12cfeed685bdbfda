package manifests

import (
	"github.com/authbench/authbench/pkg/lab/standin"
	"github.com/authbench/authbench/pkg/stacks"
)

// standin is authbench's stand-in for mode (oauth-proxy, kube-auth-proxy)
// in front of the pod's backend, from the authbench image, reviewing
// tokens as the pod's ServiceAccount (named as the component).
func (o Options) standin(name, backend, mode string) (Object, error) {
	c := standin.Config{Mode: mode, Listen: o.listen(name), PodNetwork: o.Lab == nil,
		CertFile: mountedTLS.Cert, KeyFile: mountedTLS.Key,
		Upstream: "http://" + o.peer("", backend, true) + "/",
		QPS:      o.AuthzAPIQPS, TokenReviewCache: o.AuthzCache}
	if mode == stacks.ModeOAuthProxy {
		c.Resource = &standin.Resource{Namespace: o.namespace(), Verb: "get", Resource: "services",
			Subresource: "proxy", Name: stacks.EchoService}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	v, err := c.Encode()
	if err != nil {
		return nil, err
	}
	ctr := o.container(name, stacks.ProgramStandin, []string{"lab", "standin"}, mount("tls", tlsDir))
	env := []Object{{"name": standin.Env, "value": v}}
	if o.Lab != nil {
		// No kube-proxy: in-cluster config must reach the apiserver itself.
		env = append(env, Object{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
			Object{"name": "KUBERNETES_SERVICE_PORT", "value": itoa(o.Lab.APIServerPort)})
	}
	ctr["env"] = env
	return ctr, nil
}

// standinProxied is a Deployment of backend (listening on backendPort's
// port) behind the stand-in proxy, and the Service in front of the proxy.
func (o Options) standinProxied(deploy, proxy, backendPort, mode string, backend Object) ([]Object, error) {
	sc, err := o.standin(proxy, backendPort, mode)
	if err != nil {
		return nil, err
	}
	d := o.deployment(deploy, proxy, []Object{o.ready(backend, backendPort), o.ready(sc, proxy)}, secretVolume("tls", ServingSecret))
	return []Object{d, o.service(deploy, deploy, o.port(proxy))}, nil
}
