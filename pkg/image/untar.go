package image

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// untar writes r's regular files under dir, refusing paths that leave it;
// an OCI layout has nothing else that matters (oci-layout, index.json,
// blobs/).
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("entry %q leaves the layout", h.Name)
		}
		if err := writeUntarred(filepath.Join(dir, name), io.LimitReader(tr, maxBlob+1)); err != nil {
			return err
		}
	}
}

func writeUntarred(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxBlob {
		err = fmt.Errorf("%s is larger than %d bytes", filepath.Base(path), int64(maxBlob))
	}
	return err
}
