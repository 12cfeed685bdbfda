package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// Media types and annotations of the OCI image spec and containerd.
const (
	MediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	MediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"
	// AnnotationContainerdName is what `ctr images import` names the image.
	AnnotationContainerdName = "io.containerd.image.name"
	// AnnotationRefName is the OCI tag of the manifest in the layout.
	AnnotationRefName = "org.opencontainers.image.ref.name"
)

// File is one entry of an image's layer. Exactly one of Data, Dir or Link
// describes it; parent directories are added automatically.
type File struct {
	Path string // absolute path in the image
	Mode int64  // permission bits; default 0644 (0755 for Dir)
	Data []byte
	Dir  bool
	Link string // symlink target
}

// Spec is an image to write.
type Spec struct {
	Ref        string // full reference, e.g. authbench.local/http-echo:v1.0.0
	Files      []File
	Entrypoint []string
	Env        []string // default PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
}

// Descriptor is the OCI content descriptor.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Manifest is the OCI image manifest.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// Index is the OCI image index (index.json).
type Index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []Descriptor `json:"manifests"`
}

// Config is the part of the OCI image config the lab uses.
type Config struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       struct {
		Entrypoint []string `json:"Entrypoint,omitempty"`
		Env        []string `json:"Env,omitempty"`
		WorkingDir string   `json:"WorkingDir,omitempty"`
	} `json:"config"`
	RootFS struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// WriteLayout writes s as an OCI image layout in tar form to w. The output
// is deterministic: the same spec gives the same bytes and digests.
func WriteLayout(w io.Writer, s Spec) (Descriptor, error) {
	if !strings.Contains(s.Ref, ":") {
		return Descriptor{}, fmt.Errorf("image reference %q has no tag", s.Ref)
	}
	layer, err := layerTar(s.Files)
	if err != nil {
		return Descriptor{}, fmt.Errorf("building the layer of %s: %w", s.Ref, err)
	}
	var cfg Config
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Config.Entrypoint, cfg.Config.Env, cfg.Config.WorkingDir = s.Entrypoint, s.Env, "/"
	if len(cfg.Config.Env) == 0 {
		cfg.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
	}
	cfg.RootFS.Type, cfg.RootFS.DiffIDs = "layers", []string{digest(layer)}
	cfgJSON, _ := json.Marshal(cfg)
	man := Manifest{SchemaVersion: 2, MediaType: MediaTypeManifest,
		Config: Descriptor{MediaType: MediaTypeConfig, Digest: digest(cfgJSON), Size: int64(len(cfgJSON))},
		Layers: []Descriptor{{MediaType: MediaTypeLayer, Digest: digest(layer), Size: int64(len(layer))}}}
	manJSON, _ := json.Marshal(man)
	tag := s.Ref[strings.LastIndex(s.Ref, ":")+1:]
	desc := Descriptor{MediaType: MediaTypeManifest, Digest: digest(manJSON), Size: int64(len(manJSON)),
		Annotations: map[string]string{AnnotationContainerdName: s.Ref, AnnotationRefName: tag}}
	idxJSON, _ := json.Marshal(Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{desc}})
	tw := tar.NewWriter(w)
	entries := []struct {
		name string
		data []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", idxJSON},
		{blobPath(digest(cfgJSON)), cfgJSON},
		{blobPath(digest(layer)), layer},
		{blobPath(digest(manJSON)), manJSON},
	}
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, Format: tar.FormatPAX}); err != nil {
			return Descriptor{}, err
		}
	}
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return Descriptor{}, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return Descriptor{}, err
		}
	}
	return desc, tw.Close()
}

func blobPath(d string) string { return "blobs/sha256/" + strings.TrimPrefix(d, "sha256:") }

// layerTar returns the layer: files sorted by path, parents first, owned by
// root, with a zero modification time.
func layerTar(files []File) ([]byte, error) {
	byPath := map[string]File{}
	for _, f := range files {
		p := path.Clean("/" + f.Path)
		if p == "/" {
			return nil, fmt.Errorf("file with an empty path")
		}
		f.Path = p
		byPath[p] = f
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = File{Path: d, Dir: true}
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		if err := writeEntry(tw, byPath[p]); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeEntry(tw *tar.Writer, f File) error {
	h := &tar.Header{Name: strings.TrimPrefix(f.Path, "/"), Mode: f.Mode, Format: tar.FormatPAX}
	switch {
	case f.Dir:
		h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		if h.Mode == 0 {
			h.Mode = 0o755
		}
	case f.Link != "":
		h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.Link, 0o777
	default:
		h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		if h.Mode == 0 {
			h.Mode = 0o644
		}
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(f.Data)
	return err
}
