package image

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Image is a built image tarball.
type Image struct {
	Name string // short name: http-echo, envoy, ...
	Ref  string // full reference the image is imported as
	Path string // the OCI layout tarball
	// Version is what the image's program says its version is (e.g.
	// "2.8.25" for haproxy -v); "" for images of no lab program.
	Version string
}

// DefaultRegistry prefixes the lab's image references. With
// imagePullPolicy Never nothing is pulled from it; a user's cluster pulls
// from the registry given to `kube deploy --image-registry` instead.
const DefaultRegistry = "authbench.local"

// RefFor is REGISTRY/NAME:TAG, with DefaultRegistry for an empty registry.
func RefFor(registry, name, tag string) string {
	if registry == "" {
		registry = DefaultRegistry
	}
	return strings.TrimSuffix(registry, "/") + "/" + name + ":" + tag
}

// SanitizeTag maps a version (e.g. Debian's 1.22.1-9+deb12u11) to a valid
// image tag: [A-Za-z0-9_.-], at most 128 characters.
func SanitizeTag(v string) string {
	b := []byte(v)
	for i, c := range b {
		ok := c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}

// cachedPath is CACHE/images/NAME-TAG.tar.
func cachedPath(cache, name, tag string) string {
	return filepath.Join(cache, "images", name+"-"+tag+".tar")
}

// writeCached writes the layout for s at path unless it exists, through a
// temporary file so a reader never sees half a tarball.
func writeCached(path string, s func() (Spec, error)) (cached bool, err error) {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return true, nil
	}
	spec, err := s()
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	if _, err := WriteLayout(f, spec); err != nil {
		f.Close()
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	return false, os.Rename(f.Name(), path)
}
