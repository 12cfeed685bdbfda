package toolcache

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestKubeAPIServerIsHyperkube checks that the process lab's kube-apiserver
// is hyperkube's alias, and that a kube-apiserver cached under its own
// name by an older authbench is never taken for it.
func TestKubeAPIServerIsHyperkube(t *testing.T) {
	cache := t.TempDir()
	old := binPath(cache, "kube-apiserver", KubeVersion)
	fakeExecutable(t, old)
	if p, err := toolPathIn(cache, "kube-apiserver"); err == nil {
		t.Fatalf("toolPathIn = %q, want an error: only the old standalone build is cached", p)
	}
	hk := binPath(cache, HyperkubeName, KubeVersion)
	fakeExecutable(t, hk)
	if err := linkAliases(hk, []string{"kube-apiserver"}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(hk), "kube-apiserver")
	got, err := toolPathIn(cache, "kube-apiserver")
	if err != nil || got != want {
		t.Fatalf("toolPathIn = %q, %v; want %q", got, err, want)
	}
	if target, err := os.Readlink(got); err != nil || target != HyperkubeName {
		t.Errorf("kube-apiserver links to %q (%v), want %q", target, err, HyperkubeName)
	}
}

func TestLinkAliasesReplacesStaleLink(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bin", "multi")
	fakeExecutable(t, bin)
	if err := os.Symlink("gone", filepath.Join(filepath.Dir(bin), "a")); err != nil {
		t.Fatal(err)
	}
	if aliasesPresent(bin, []string{"a"}) {
		t.Fatal("a dangling alias counts as present")
	}
	if err := linkAliases(bin, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if !aliasesPresent(bin, []string{"a", "b"}) {
		t.Error("aliases missing after linkAliases")
	}
}

func TestProbeRebuildsWithoutAliases(t *testing.T) {
	cache := fakeCache(t)
	tool, _ := lookupTool(HyperkubeName)
	if err := os.Remove(filepath.Join(filepath.Dir(binPath(cache, tool.Name, tool.Version)), "kube-apiserver")); err != nil {
		t.Fatal(err)
	}
	in := &installer{cache: cache, opts: withDefaults(Options{CacheDir: cache})}
	_, done, why, err := goToolStep(in, tool).probe(context.Background())
	if err != nil || done || why != "aliases missing" {
		t.Errorf("probe = done %v, why %q, err %v; want a rebuild", done, why, err)
	}
}

func TestComponentsNameAliasStep(t *testing.T) {
	for _, c := range Components() {
		if c.Name == "kube-apiserver" {
			if c.Step != HyperkubeName || c.Pinned != KubeVersion {
				t.Errorf("kube-apiserver comes from step %q at %q, want %q at %q", c.Step, c.Pinned, HyperkubeName, KubeVersion)
			}
			return
		}
	}
	t.Error("no kube-apiserver component")
}

// TestPrefetchRunsBeforeInstall checks the lanes: a build step's prefetch
// runs (in its own lane) before its install, and release runs after.
func TestPrefetchRunsBeforeInstall(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	fetched := make(chan struct{})
	s := fakeStep(func(context.Context, stepLog, io.Writer) (string, error) {
		<-fetched // as buildTool waits for its modules
		note("install")
		return "/x", nil
	})
	s.prefetch = func(context.Context, stepLog) { note("prefetch"); close(fetched) }
	s.release = func() { note("release") }
	cache := t.TempDir()
	in := &installer{cache: cache, opts: withDefaults(Options{CacheDir: cache})}
	var out bytes.Buffer
	p := &progress{w: &out, total: 1}
	rep := &Report{Steps: make([]StepReport, 1)}
	runLanes(context.Background(), in, p, []step{s}, rep, nil, []int{0})
	if got := strings.Join(order, " "); got != "prefetch install release" {
		t.Errorf("order %q, want prefetch, install, release", got)
	}
	if rep.Steps[0].Status != StatusInstalled {
		t.Errorf("status %s, want installed:\n%s", rep.Steps[0].Status, out.String())
	}
}
