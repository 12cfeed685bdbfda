package manifests

import (
	"fmt"
	"strings"
)

// Prometheus is the monitoring Deployment's name and ServiceAccount.
const Prometheus = "prometheus"

// MonitoringOptions place the Prometheus that scrapes the kubelet's
// cAdvisor endpoint the way cluster monitoring does: over TLS, with a
// ServiceAccount token bound to `get nodes/metrics`.
type MonitoringOptions struct {
	Namespace   string // default DefaultNamespace
	Image       string // the prometheus image reference (required)
	Listen      string // host:port Prometheus serves on (hostNetwork), e.g. 127.0.0.1:PORT
	KubeletAddr string // host:port of the kubelet's TLS server, e.g. 127.0.0.1:10250
	Interval    string // scrape interval; default 5s
	Lab         bool   // imagePullPolicy Never
}

// Monitoring returns the objects of the cAdvisor-scraping Prometheus.
func Monitoring(m MonitoringOptions) []Object {
	o := Options{Stack: "monitoring", Namespace: m.Namespace, Images: map[string]string{"prometheus": m.Image}}
	if m.Lab {
		o.Lab = &Lab{}
	}
	if m.Interval == "" {
		m.Interval = "5s"
	}
	ns, role := o.namespace(), "authbench-prometheus-node-metrics"
	sa := "/var/run/secrets/kubernetes.io/serviceaccount/"
	cfg := strings.Join([]string{
		"global:", "  scrape_interval: " + m.Interval, "scrape_configs:",
		"- job_name: kubelet-cadvisor", "  scheme: https", "  metrics_path: /metrics/cadvisor",
		"  authorization: {credentials_file: " + sa + "token}",
		"  tls_config: {ca_file: " + sa + "ca.crt}",
		fmt.Sprintf("  static_configs: [{targets: [%q]}]", m.KubeletAddr), ""}, "\n")
	c := o.container(Prometheus, "prometheus", []string{"--config.file=/etc/prometheus/prometheus.yml",
		"--web.listen-address=" + m.Listen, "--storage.tsdb.path=/prometheus", "--storage.tsdb.retention.time=2h"},
		mount("config", "/etc/prometheus"))
	c["volumeMounts"] = append(c["volumeMounts"].([]Object), Object{"name": "data", "mountPath": "/prometheus"})
	return []Object{
		obj("v1", "ServiceAccount", meta(Prometheus, ns, o.Stack), nil),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", meta(role, "", o.Stack), Object{
			"rules": []Object{{"apiGroups": []string{""}, "resources": []string{"nodes/metrics"}, "verbs": []string{"get"}}}}),
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", meta(role+"-"+ns, "", o.Stack), Object{
			"roleRef":  Object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
			"subjects": []Object{{"kind": "ServiceAccount", "name": Prometheus, "namespace": ns}}}),
		obj("v1", "ConfigMap", meta(Prometheus, ns, o.Stack), Object{"data": Object{"prometheus.yml": cfg}}),
		o.deployment(Prometheus, Prometheus, []Object{c}, configVolume("config", Prometheus),
			Object{"name": "data", "emptyDir": Object{}}),
	}
}
