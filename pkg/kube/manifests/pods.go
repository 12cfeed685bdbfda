package manifests

import (
	"strings"
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
	return o.container("http-echo", "http-echo", []string{"-listen=" + o.listen(name), "-text=" + EchoText})
}

// rbacProxy is kube-rbac-proxy in front of the pod's http-echo:
// TokenReview and SubjectAccessReview against the apiserver.
func (o Options) rbacProxy(name, echo string) Object {
	c := o.container(name, "kube-rbac-proxy", []string{
		"--secure-listen-address=" + o.listen(name),
		"--upstream=http://" + o.peer("", echo, true) + "/",
		"--tls-cert-file=/etc/authbench/tls/tls.crt", "--tls-private-key-file=/etc/authbench/tls/tls.key",
		"--config-file=/etc/authbench/rbac/config.yaml", "--v=0"},
		mount("tls", "/etc/authbench/tls"), mount("rbac", "/etc/authbench/rbac"))
	if o.Lab != nil {
		// No kube-proxy: in-cluster config must reach the apiserver itself.
		c["env"] = []Object{{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
			{"name": "KUBERNETES_SERVICE_PORT", "value": itoa(o.Lab.APIServerPort)}}
	}
	return c
}

// rbacConfig is kube-rbac-proxy's authorization config: a
// SubjectAccessReview for "VERB services/proxy echo" in the namespace.
func (o Options) rbacConfig(name string) Object {
	cfg := strings.Join([]string{
		"authorization:", "  resourceAttributes:", "    namespace: " + o.namespace(), "    apiVersion: v1",
		"    resource: services", "    subresource: proxy", "    name: " + EchoService, ""}, "\n")
	return obj("v1", "ConfigMap", meta(name, o.namespace(), o.Stack), Object{"data": Object{"config.yaml": cfg}})
}

// echoWithProxy is the backend Deployment with its kube-rbac-proxy sidecar.
func (o Options) echoWithProxy(deploy, proxy, sa string) []Object {
	cm := deploy + "-rbac"
	d := o.deployment(deploy, sa, []Object{o.ready(o.echo(deploy), deploy), o.ready(o.rbacProxy(proxy, deploy), proxy)},
		secretVolume("tls", ServingSecret), configVolume("rbac", cm))
	return []Object{o.rbacConfig(cm), d, o.service(deploy, deploy, o.port(proxy))}
}

// ready adds a readiness probe on the component's port, so that a
// Deployment is available only once its pods listen.
func (o Options) ready(c Object, component string) Object {
	c["readinessProbe"] = Object{"tcpSocket": Object{"port": o.port(component)}, "periodSeconds": 1, "failureThreshold": 3}
	return c
}
