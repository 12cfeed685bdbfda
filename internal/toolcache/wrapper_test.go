package toolcache

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// TestRenderWrapperGolden pins each tool's wrapper module: a change to a
// version or replace shows up as a diff in testdata/wrapper/.
func TestRenderWrapperGolden(t *testing.T) {
	for _, tool := range Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			files, err := renderWrapper(tool)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				testenv.Golden(t, "testdata/wrapper/"+tool.Name+"/"+f.Name+".golden", f.Data)
			}
		})
	}
}

func TestRenderWrapperShape(t *testing.T) {
	tests := []struct {
		tool, file string
		want       []string
	}{
		{"http-echo", "tools.go", []string{"//go:build tools", `import _ "github.com/hashicorp/http-echo"`}},
		{"kube-rbac-proxy", "go.mod", []string{"\tgithub.com/brancz/kube-rbac-proxy v0.19.1",
			"k8s.io/client-go => k8s.io/client-go v0.32.2"}},
		{"kube-rbac-proxy", "tools.go", []string{"package main", `_ "github.com/brancz/kube-rbac-proxy/cmd/kube-rbac-proxy"`}},
		{"hyperkube", "go.mod", []string{"\tk8s.io/kubernetes v1.32.2",
			"k8s.io/client-go => k8s.io/client-go v0.32.2", "k8s.io/externaljwt => k8s.io/externaljwt v0.32.2"}},
		{"hyperkube", "main.go", []string{`"kube-apiserver":          apiserver.NewAPIServerCommand`}},
	}
	for _, tc := range tests {
		t.Run(tc.tool+"/"+tc.file, func(t *testing.T) {
			tool, _ := lookupTool(tc.tool)
			files, err := renderWrapper(tool)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, f := range files {
				if f.Name == tc.file {
					got = string(f.Data)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %q:\n%s", tc.file, w, got)
				}
			}
		})
	}
}

// TestBuildTarget checks that each tool builds its wrapper's main.go or a
// package its tools.go keeps (else go mod tidy drops the package's module).
func TestBuildTarget(t *testing.T) {
	for _, tool := range Tools() {
		w := tool.Wrapper
		if tool.Target == "." && w.MainSource == "" || tool.Target != "." && !slices.Contains(w.Keep, tool.Target) {
			t.Errorf("%s builds %q, which its wrapper (main.go %v, keeps %v) does not provide",
				tool.Name, tool.Target, w.MainSource != "", w.Keep)
		}
	}
}

// TestKubeToolsShareOneWrapper checks that hyperkube and kube-rbac-proxy
// are built in identical modules: one build list, so the Go build cache
// compiles Kubernetes once for both.
func TestKubeToolsShareOneWrapper(t *testing.T) {
	hk, _ := lookupTool(HyperkubeName)
	krp, _ := lookupTool("kube-rbac-proxy")
	a, errA := renderWrapper(hk)
	b, errB := renderWrapper(krp)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if len(a) != len(b) {
		t.Fatalf("hyperkube's wrapper has %d files, kube-rbac-proxy's %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between the two wrappers:\n%s\n---\n%s", a[i].Name, a[i].Data, b[i].Data)
		}
	}
	if ha, _ := inputsHash(hk); ha == "" {
		t.Error("empty inputs hash")
	} else if hb, _ := inputsHash(krp); ha == hb {
		t.Error("hyperkube and kube-rbac-proxy have the same inputs hash")
	}
}

func TestInputsHash(t *testing.T) {
	base, _ := lookupTool("kube-rbac-proxy")
	h0, err := inputsHash(base)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := inputsHash(base); again != h0 {
		t.Fatalf("hash not stable: %s then %s", h0, again)
	}
	changes := map[string]func(*Tool){
		"version":  func(x *Tool) { x.Version = "v0.19.2" },
		"ldflags":  func(x *Tool) { x.LDFlags = append(append([]string{}, x.LDFlags...), "-X a.b=c") },
		"replaces": func(x *Tool) { x.Wrapper.Replaces = nil },
		"target":   func(x *Tool) { x.Target = "github.com/brancz/kube-rbac-proxy" },
		"aliases":  func(x *Tool) { x.Aliases = []string{"rbac-proxy"} },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			tool := base
			change(&tool)
			if h, _ := inputsHash(tool); h == h0 {
				t.Errorf("changing the %s leaves the inputs hash unchanged", name)
			}
		})
	}
}

func TestToolsArePinned(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range Tools() {
		if seen[tool.Name] {
			t.Errorf("duplicate tool %s", tool.Name)
		}
		seen[tool.Name] = true
		if !strings.HasPrefix(tool.Version, "v") || tool.Module == "" || tool.Target == "" ||
			!slices.Contains(tool.Wrapper.Requires, Require{tool.Module, tool.Version}) {
			t.Errorf("%s: incomplete pin %+v", tool.Name, tool)
		}
		if !strings.Contains(tool.VersionWant, tool.Version) {
			t.Errorf("%s: VersionWant %q does not check version %s", tool.Name, tool.VersionWant, tool.Version)
		}
	}
}
