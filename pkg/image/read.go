package image

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Layout is an OCI image layout read back from a tarball.
type Layout struct {
	Index    Index
	Manifest Manifest
	Config   Config
	Files    map[string]*tar.Header // the layer's entries by path, without a leading slash
}

// maxBlob bounds what ReadLayout holds in memory per blob.
const maxBlob = 1 << 30

// ReadLayout parses an OCI layout tarball with a single image, checking
// every blob's digest and size against the descriptors that name it.
func ReadLayout(r io.Reader) (*Layout, error) {
	blobs := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the layout tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxBlob))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", h.Name, err)
		}
		blobs[h.Name] = b
	}
	if string(blobs["oci-layout"]) == "" {
		return nil, errors.New("not an OCI layout: no oci-layout file")
	}
	l := &Layout{}
	if err := json.Unmarshal(blobs["index.json"], &l.Index); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	if len(l.Index.Manifests) != 1 {
		return nil, fmt.Errorf("index.json: %d manifests, want 1", len(l.Index.Manifests))
	}
	if err := blobJSON(blobs, l.Index.Manifests[0], &l.Manifest); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if err := blobJSON(blobs, l.Manifest.Config, &l.Config); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(l.Manifest.Layers) != 1 || len(l.Config.RootFS.DiffIDs) != 1 {
		return nil, errors.New("want exactly one layer and one diff_id")
	}
	layer, err := blob(blobs, l.Manifest.Layers[0])
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	if digest(layer) != l.Config.RootFS.DiffIDs[0] {
		return nil, errors.New("layer digest differs from the config's diff_id (an uncompressed layer has them equal)")
	}
	l.Files, err = layerEntries(layer)
	return l, err
}

func blob(blobs map[string][]byte, d Descriptor) ([]byte, error) {
	b, ok := blobs[blobPath(d.Digest)]
	if !ok {
		return nil, fmt.Errorf("blob %s missing", d.Digest)
	}
	if int64(len(b)) != d.Size || digest(b) != d.Digest {
		return nil, fmt.Errorf("blob %s: size or digest mismatch", d.Digest)
	}
	return b, nil
}

func blobJSON(blobs map[string][]byte, d Descriptor, v any) error {
	b, err := blob(blobs, d)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func layerEntries(layer []byte) (map[string]*tar.Header, error) {
	files := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the layer: %w", err)
		}
		files[strings.TrimSuffix(h.Name, "/")] = h
	}
}

// Ref returns the image reference containerd will name the image by.
func (l *Layout) Ref() string { return l.Index.Manifests[0].Annotations[AnnotationContainerdName] }
