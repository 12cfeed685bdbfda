package kube

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ImagesFile, in the lab's directory, records the image references lab up
// imported into the cluster's containerd (name -> reference), so that
// run --pods uses the authbench image already there instead of building
// and importing it again.
const ImagesFile = "images.json"

// writeImages records the imported images.
func writeImages(dir string, refs map[string]string) error {
	b, err := json.MarshalIndent(refs, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, ImagesFile), append(b, '\n'), 0o644)
}

// ImportedImage is the reference of image name (e.g. "authbench") that
// the kube lab in dir imported at lab up, or "" when it recorded none.
// authbench's reference carries its binary's content hash, so a caller
// compares it with image.Ref to know whether the image is its own build.
func ImportedImage(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ImagesFile))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the kube lab's images: %w", err)
	}
	var refs map[string]string
	if err := json.Unmarshal(b, &refs); err != nil {
		return "", fmt.Errorf("reading %s: %w", filepath.Join(dir, ImagesFile), err)
	}
	return refs[name], nil
}
