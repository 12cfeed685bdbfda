package manifests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

func opts(stack string, lab bool) Options {
	o := Options{Stack: stack, Images: map[string]string{"http-echo": "r/http-echo:1", "kube-rbac-proxy": "r/krp:1",
		"oauth2-proxy": "r/o2p:1", "envoy": "r/envoy:1", "haproxy": "r/haproxy:1"},
		Serving: TLS{Cert: []byte("C"), Key: []byte("K"), CA: []byte("A")},
		OIDC:    OIDC{IssuerURL: "https://127.0.0.1:1/realms/x", ClientID: "c"}}
	if lab {
		o.Lab = &Lab{Ports: Ports{}, APIServerPort: 6443}
		for i, n := range stacks.PortNames(stack) {
			o.Lab.Ports[n] = 20000 + i
		}
	}
	return o
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name      string
		o         Options
		wantKinds []string
		want      []string // substrings of the JSON
		wantNot   []string
	}{
		{"2x lab", opts(stacks.Stack2x, true), []string{"Route", "Deployment", "ClusterRoleBinding"},
			[]string{`"hostNetwork":true`, `"imagePullPolicy":"Never"`, `--secure-listen-address=127.0.0.1:20001`,
				`bind 127.0.0.1:20002 ssl`, `server route_http-echo-2x 127.0.0.1:20001 ssl`, `"KUBERNETES_SERVICE_PORT","value":"6443"`},
			[]string{"0.0.0.0", "HTTPRoute"}},
		{"3x cluster", opts(stacks.Stack3x, false), []string{"HTTPRoute", "Deployment"},
			[]string{`--http-address=0.0.0.0:4180`, `{ address: http-echo-3x.authbench.svc, port_value: 8443 }`,
				`{ address: oauth2-proxy.authbench.svc, port_value: 4180 }`, `type: STRICT_DNS`, `uri: http://oauth2-proxy.authbench.svc:4180`,
				`{ address: 0.0.0.0, port_value: 8443 }`, `{ address: 127.0.0.1, port_value: 15000 }`,
				`timeout: 5s`, `failure_mode_allow: false`},
			[]string{`"hostNetwork"`, `"imagePullPolicy"`, "KUBERNETES_SERVICE_HOST"}},
		// The ext_authz hop goes over TLS to kube-rbac-proxy playing
		// kube-auth-proxy, whose upstream answers 200; both proxies run
		// as their own ServiceAccounts at 1000 QPS; pool users are bound.
		{"3x-oauth lab", func() Options {
			o := opts(stacks.Stack3xOAuth, true)
			o.Authz = Authz{Timeout: 250 * time.Millisecond, FailureMode: stacks.AuthzFailAllow}
			return o
		}(), []string{"HTTPRoute", "Deployment", "ClusterRoleBinding"},
			[]string{`"hostNetwork":true`, `"imagePullPolicy":"Never"`,
				`--secure-listen-address=127.0.0.1:20003`, `--upstream=http://127.0.0.1:20002/`, `-text=` + stacks.AuthzOKText,
				`--secure-listen-address=127.0.0.1:20001`, `--upstream=http://127.0.0.1:20000/`,
				`--kube-api-qps=1000`, `--kube-api-burst=2000`, `"serviceAccountName":"kube-auth-proxy-oauth"`,
				`"serviceAccountName":"kube-rbac-proxy-oauth"`, `"name":"authbench-pool"`,
				`uri: https://127.0.0.1:20003`, `{ address: 127.0.0.1, port_value: 20003 }`, `{ address: 127.0.0.1, port_value: 20001 }`,
				`{ address: 127.0.0.1, port_value: 20004 }`, `{ address: 127.0.0.1, port_value: 20005 }`, `type: STATIC`,
				`timeout: 0.25s`, `failure_mode_allow: true`},
			[]string{"0.0.0.0", `"kind":"Route"`, "oauth2-proxy", "--oidc", "--provider"}},
		{"3x-oauth cluster, no OIDC needed", func() Options { o := opts(stacks.Stack3xOAuth, false); o.OIDC = OIDC{}; return o }(),
			[]string{"HTTPRoute", "Deployment"},
			[]string{`{ address: kube-auth-proxy-oauth.authbench.svc, port_value: 8443 }`, `{ address: http-echo-3x-oauth.authbench.svc, port_value: 8443 }`,
				`--secure-listen-address=0.0.0.0:8443`, `-listen=0.0.0.0:5678`},
			[]string{`"hostNetwork"`, "KUBERNETES_SERVICE_HOST", "oauth2-proxy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Build(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(objs)
			all := string(b)
			kinds := map[string]bool{}
			for _, o := range objs {
				kinds[Kind(o)] = true
				if Namespace(o) != "" && Namespace(o) != DefaultNamespace {
					t.Errorf("%s %s in namespace %q", Kind(o), Name(o), Namespace(o))
				}
			}
			for _, k := range tc.wantKinds {
				if !kinds[k] {
					t.Errorf("no %s among %v", k, kinds)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("objects lack %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(all, w) {
					t.Errorf("objects contain %q", w)
				}
			}
		})
	}
}

func TestBuildRejects(t *testing.T) {
	noPort := opts(stacks.Stack2x, true)
	delete(noPort.Lab.Ports, stacks.HAProxy)
	noOIDC := opts(stacks.Stack3x, false)
	noOIDC.OIDC = OIDC{}
	badTimeout := opts(stacks.Stack3x, false)
	badTimeout.Authz.Timeout = 1500 * time.Microsecond
	badMode := opts(stacks.Stack3x, false)
	badMode.Authz.FailureMode = "open"
	for name, tc := range map[string]struct {
		o    Options
		want string
	}{
		"stack":    {Options{Stack: "4x"}, `stack "4x"`},
		"port":     {noPort, "lacks a port for haproxy"},
		"oidc":     {noOIDC, "needs Options.OIDC"},
		"no certs": {Options{Stack: stacks.Stack2x}, "Serving"},
		"timeout":  {badTimeout, "authz timeout 1.5ms"},
		"mode":     {badMode, `failure mode "open"`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Build(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCRDsNameTheirKinds(t *testing.T) {
	for _, c := range CRDs() {
		spec := c["spec"].(Object)
		names := spec["names"].(Object)
		if Name(c) != str(names["plural"])+"."+str(spec["group"]) {
			t.Errorf("CRD %s does not match %v", Name(c), names)
		}
	}
}

// TestWorkloadsExist checks that every component's Deployment and
// container are among the built objects.
func TestWorkloadsExist(t *testing.T) {
	for _, stack := range stacks.Names() {
		objs, err := Build(opts(stack, true))
		if err != nil {
			t.Fatal(err)
		}
		containers := map[string]bool{}
		for _, o := range objs {
			if Kind(o) != "Deployment" {
				continue
			}
			pod := o["spec"].(Object)["template"].(Object)["spec"].(Object)
			for _, c := range pod["containers"].([]Object) {
				containers[Name(o)+"/"+str(c["name"])] = true
			}
		}
		for _, sc := range stacks.Components(stack) {
			comp := sc.Name
			d, c, ok := Workload(comp)
			if !ok {
				t.Errorf("stack %s: component %s has no workload", stack, comp)
			}
			if !containers[d+"/"+c] {
				t.Errorf("stack %s: component %s's %s/%s is not built (have %v)", stack, comp, d, c, containers)
			}
			delete(containers, d+"/"+c)
		}
		if len(containers) > 0 {
			t.Errorf("stack %s: containers %v are no component's", stack, containers)
		}
	}
}
