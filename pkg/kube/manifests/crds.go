package manifests

import "strings"

// CRDs are the Route and HTTPRoute CustomResourceDefinitions the lab
// cluster lacks (OpenShift and a Gateway API install bring the real ones):
// enough schema for the apiserver to validate the stacks' objects under
// server-side apply, the rest preserved.
func CRDs() []Object {
	return []Object{
		crd("route.openshift.io", "Route", "routes", Object{
			"type": "object", "required": []string{"to"},
			"x-kubernetes-preserve-unknown-fields": true,
			"properties": Object{
				"to": Object{"type": "object", "required": []string{"kind", "name"},
					"x-kubernetes-preserve-unknown-fields": true,
					"properties":                           Object{"kind": Object{"type": "string", "enum": []string{"Service", ""}}, "name": Object{"type": "string"}}},
				"tls": Object{"type": "object", "x-kubernetes-preserve-unknown-fields": true,
					"properties": Object{"termination": Object{"type": "string", "enum": []string{"edge", "reencrypt", "passthrough"}}}},
			}}),
		crd("gateway.networking.k8s.io", "HTTPRoute", "httproutes", Object{
			"type": "object", "x-kubernetes-preserve-unknown-fields": true,
			"properties": Object{
				"parentRefs": Object{"type": "array", "items": Object{"type": "object", "required": []string{"name"},
					"x-kubernetes-preserve-unknown-fields": true}},
				"rules": Object{"type": "array", "items": Object{"type": "object", "x-kubernetes-preserve-unknown-fields": true,
					"properties": Object{"backendRefs": Object{"type": "array", "items": Object{"type": "object",
						"required": []string{"name"}, "x-kubernetes-preserve-unknown-fields": true,
						"properties": Object{"name": Object{"type": "string"}, "port": Object{"type": "integer", "minimum": 1, "maximum": 65535}}}}}}},
			}}),
	}
}

func crd(group, kind, plural string, spec Object) Object {
	version := "v1"
	md := meta(plural+"."+group, "", "crds")
	if strings.HasSuffix(group, ".k8s.io") {
		// The apiserver protects *.k8s.io groups; the real Gateway API CRDs
		// carry this annotation too.
		md["annotations"] = Object{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/2466"}
	}
	return obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", md, Object{"spec": Object{
		"group": group, "scope": "Namespaced",
		"names": Object{"kind": kind, "plural": plural, "singular": lower(kind), "listKind": kind + "List"},
		"versions": []Object{{"name": version, "served": true, "storage": true,
			"schema": Object{"openAPIV3Schema": Object{"type": "object",
				"properties": Object{"spec": spec, "status": Object{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}},
	}})
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
