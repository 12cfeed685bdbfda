package manifests

import (
	"github.com/authbench/authbench/pkg/stacks"
)

// container returns a container of image with args.
func (o Options) container(name, img string, args []string, mounts ...Object) Object {
	c := Object{"name": name, "image": o.Images[img], "args": args,
		"resources": Object{"requests": Object{"cpu": "10m", "memory": "32Mi"}}}
	if o.Lab != nil {
		c["imagePullPolicy"] = "Never"
	}
	if len(mounts) > 0 {
		c["volumeMounts"] = mounts
	}
	return c
}

func mount(name, path string) Object {
	return Object{"name": name, "mountPath": path, "readOnly": true}
}

// deployment wraps containers in a one-replica Deployment; the lab
// overlay puts it on the host network (Recreate: a new pod binds the same
// 127.0.0.1 ports only once the old one is gone).
func (o Options) deployment(name, sa string, containers []Object, volumes ...Object) Object {
	labels := Object{"app": name}
	pod := Object{"containers": containers, "automountServiceAccountToken": sa != ""}
	if sa != "" {
		pod["serviceAccountName"] = sa
	}
	if len(volumes) > 0 {
		pod["volumes"] = volumes
	}
	spec := Object{"replicas": 1, "selector": Object{"matchLabels": labels},
		"template": Object{"metadata": Object{"labels": labels}, "spec": pod}}
	if o.Lab != nil {
		pod["hostNetwork"] = true
		pod["dnsPolicy"] = "ClusterFirstWithHostNet"
		spec["strategy"] = Object{"type": "Recreate"}
	}
	return obj("apps/v1", "Deployment", meta(name, o.namespace(), o.Stack), Object{"spec": spec})
}

func (o Options) service(name, app string, port int) Object {
	return obj("v1", "Service", meta(name, o.namespace(), o.Stack), Object{"spec": Object{
		"selector": Object{"app": app},
		"ports":    []Object{{"name": "main", "port": port, "targetPort": port}}}})
}

func secretVolume(name, secret string) Object {
	return Object{"name": name, "secret": Object{"secretName": secret}}
}

func configVolume(name, cm string) Object {
	return Object{"name": name, "configMap": Object{"name": cm}}
}

// echo is http-echo, the backend.
func (o Options) echo(name string) Object {
	return o.textServer(stacks.ProgramHTTPEcho, name, stacks.EchoText)
}

// textServer is http-echo as container name, listening on port's
// component, answering text.
func (o Options) textServer(name, port, text string) Object {
	return o.container(name, stacks.ProgramHTTPEcho, []string{"-listen=" + o.listen(port), "-text=" + text})
}

// rbacProxy is kube-rbac-proxy in front of the pod's backend:
// TokenReview and SubjectAccessReview against the apiserver.
func (o Options) rbacProxy(name, backend string) Object {
	args := []string{
		"--secure-listen-address=" + o.listen(name),
		"--upstream=http://" + o.peer("", backend, true) + "/",
		"--tls-cert-file=" + mountedTLS.Cert, "--tls-private-key-file=" + mountedTLS.Key,
		"--config-file=/etc/authbench/rbac/" + rbacConfigKey, "--v=0"}
	if o.Stack == stacks.Stack3xOAuth {
		args = append(args, stacks.KubeAPIRateArgs()...) // the sidecar's; the ext_authz stand-in has its own
	}
	c := o.container(name, stacks.ProgramKubeRBACProxy, args, mount("tls", tlsDir), mount("rbac", "/etc/authbench/rbac"))
	if o.Lab != nil {
		// No kube-proxy: in-cluster config must reach the apiserver itself.
		c["env"] = []Object{{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
			{"name": "KUBERNETES_SERVICE_PORT", "value": itoa(o.Lab.APIServerPort)}}
	}
	return c
}

// rbacConfigKey is the rbac ConfigMap's key, the file kube-rbac-proxy reads.
const rbacConfigKey = "config.yaml"

// rbacConfig is kube-rbac-proxy's authorization config: a
// SubjectAccessReview for "VERB services/proxy echo" in the namespace.
func (o Options) rbacConfig(name string) Object {
	return o.configMap(name, rbacConfigKey, stacks.ConfigRBACProxy,
		stacks.RBACProxyAuthz{Namespace: o.namespace(), EchoService: stacks.EchoService})
}

// echoWithProxy is the backend Deployment with its kube-rbac-proxy
// sidecar, which runs as its own ServiceAccount (named as the proxy).
func (o Options) echoWithProxy(deploy, proxy string) []Object {
	return o.proxied(deploy, proxy, deploy, o.echo(deploy))
}

// proxied is a Deployment of backend (listening on backendPort's port)
// behind kube-rbac-proxy, and the Service in front of the proxy.
func (o Options) proxied(deploy, proxy, backendPort string, backend Object) []Object {
	cm := deploy + "-rbac"
	d := o.deployment(deploy, proxy, []Object{o.ready(backend, backendPort), o.ready(o.rbacProxy(proxy, backendPort), proxy)},
		secretVolume("tls", ServingSecret), configVolume("rbac", cm))
	return []Object{o.rbacConfig(cm), d, o.service(deploy, deploy, o.port(proxy))}
}

// ready adds a readiness probe on the component's port, so that a
// Deployment is available only once its pods listen.
func (o Options) ready(c Object, component string) Object {
	c["readinessProbe"] = Object{"tcpSocket": Object{"port": o.port(component)}, "periodSeconds": 1, "failureThreshold": 3}
	return c
}
