package manifests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/stacks"
)

// liveDeployment is the lab's Deployment named d of stack, as the cluster
// returns it (JSON decoded into maps).
func liveDeployment(t *testing.T, stack, d string) Object {
	t.Helper()
	o := opts(stack, true)
	o.Images["authbench"] = "r/authbench:1"
	objs, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range objs {
		if Kind(x) == "Deployment" && Name(x) == d {
			var live Object
			if err := remarshal(x, &live); err != nil {
				t.Fatal(err)
			}
			return live
		}
	}
	t.Fatalf("no Deployment %s in stack %s", d, stack)
	return nil
}

func TestReplica(t *testing.T) {
	tests := []struct {
		stack, name, deploy string
		old, new            int
		want, wantNot       []string
		kinds               int
	}{
		{stacks.Stack3xOAuth, stacks.ReplicaName(stacks.KubeAuthProxyOAuth, 2), stacks.KubeAuthProxyOAuth, 0, 31002,
			[]string{`\"listen\":\"127.0.0.1:31002\"`, `"serviceAccountName":"kube-auth-proxy-oauth-r2"`, `"port":31002`,
				`"authbench.io/replica-of":"kube-auth-proxy-oauth"`, `"name":"kube-auth-proxy-oauth-r2"`},
			[]string{`"name":"authz-ok-oauth"`}, 3},
		{stacks.Stack3x, stacks.ReplicaName(stacks.KubeRBACProxy, 3), stacks.Echo3x, 0, 31003,
			[]string{`--secure-listen-address=127.0.0.1:31003`, `"serviceAccountName":"kube-rbac-proxy-r3"`, `"port":31003`},
			[]string{`"name":"http-echo"`}, 3},
		{stacks.Stack3x, stacks.ReplicaName(stacks.OAuth2Proxy, 2), stacks.OAuth2Proxy, 0, 31004,
			[]string{`--http-address=127.0.0.1:31004`}, []string{`serviceAccountName`}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, _, _ := stacks.ReplicaOf(tc.name)
			old := opts(tc.stack, true).Lab.Ports[base]
			objs, err := Replica(liveDeployment(t, tc.stack, tc.deploy), tc.name, map[int]int{old: tc.new})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != tc.kinds || Kind(objs[len(objs)-1]) != "Deployment" || Name(objs[len(objs)-1]) != tc.name {
				t.Fatalf("objects %v, want %d ending in Deployment %s", objs, tc.kinds, tc.name)
			}
			b, _ := json.Marshal(objs)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("replica lacks %s:\n%s", w, b)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(string(b), w) {
					t.Errorf("replica has %s:\n%s", w, b)
				}
			}
			if strings.Contains(string(b), ":"+itoa(old)+`"`) {
				t.Errorf("replica still listens on the first's port %d:\n%s", old, b)
			}
			del := ReplicaObjects(tc.name, DefaultNamespace, tc.stack, tc.kinds > 1)
			for i := range del {
				if Kind(del[i]) != Kind(objs[i]) || Name(del[i]) != Name(objs[i]) {
					t.Errorf("ReplicaObjects[%d] %s %s, Replica made %s %s", i, Kind(del[i]), Name(del[i]), Kind(objs[i]), Name(objs[i]))
				}
			}
		})
	}
	if _, err := Replica(liveDeployment(t, stacks.Stack3x, stacks.Envoy), stacks.Envoy, nil); err == nil {
		t.Error("Replica of the gateway: no error")
	}
}

func TestWorkloadReplica(t *testing.T) {
	d, c, ok := Workload(stacks.ReplicaName(stacks.KubeRBACProxyOAuth, 2))
	if !ok || d != "kube-rbac-proxy-oauth-r2" || c != stacks.KubeRBACProxyOAuth {
		t.Errorf("Workload of a sidecar's replica: %s %s %v", d, c, ok)
	}
}

func TestGatewayEDS(t *testing.T) {
	o := opts(stacks.Stack3xOAuth, true)
	o.Images["authbench"] = "r/authbench:1"
	o.Lab.EDSDir = "/lab/eds"
	objs, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(objs)
	for _, w := range []string{`"path":"/lab/eds/envoy-oauth"`, `path: /etc/authbench/eds/ext_authz`, `"mountPath":"/etc/authbench/eds"`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("gateway with EDSDir lacks %s", w)
		}
	}
}

func TestRouterRuntimeAPI(t *testing.T) {
	o := opts(stacks.Stack2x, true)
	o.Images["authbench"] = "r/authbench:1"
	o.Lab.RuntimeDir = "/lab/router"
	objs, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(objs)
	for _, w := range []string{`"path":"/lab/router"`, `stats socket /run/authbench/router/haproxy.sock`,
		`server-template ` + RouterBackend + `- 2-`, `backend ` + RouterBackend} {
		if !strings.Contains(string(b), w) {
			t.Errorf("router with RuntimeDir lacks %s", w)
		}
	}
}
