// Package atomicfile is the project's one way of writing a file: through
// a temporary file beside it, fsynced, then renamed into place, so that a
// reader (or a run interrupted by a crash) never sees half a file. Run
// directories, history, lab state and certificates, and tool stamps all
// go through it.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// File streams into a temporary file that Commit moves into place; until
// then the destination is untouched. It is for writers that produce a
// file bit by bit (a histogram log during a run).
type File struct {
	*os.File
	path string
}

// Create starts writing path with permissions perm less the process's
// umask, as os.WriteFile would: results are written 0666 and follow the
// user's umask (0644 under 022, 0600 under 077), files holding secrets
// 0600 whatever it is. The destination, if it exists, is replaced with
// these permissions, not its own.
func Create(path string, perm os.FileMode) (*File, error) {
	f, err := createTemp(path, perm)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// createTemp creates a new temporary file beside path with perm, the
// kernel applying the umask (os.CreateTemp would make it 0600 whatever
// perm is, and a chmod afterwards would ignore the umask).
func createTemp(path string, perm os.FileMode) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	for range 100 {
		f, err := os.OpenFile(prefix+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no unused temporary name beside %s", path)
}

// Commit syncs and closes the file and renames it into place. On failure
// the temporary file is removed and the destination is untouched.
func (f *File) Commit() error {
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Abort discards what was written.
func (f *File) Abort() {
	f.File.Close()
	os.Remove(f.Name())
}

// Write writes data to path atomically with permissions perm.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.File.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// syncDir makes the rename itself durable. It is best effort: some
// filesystems refuse to sync a directory, and the file is in place anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
