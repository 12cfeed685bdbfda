package toolcache

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/atomicfile"
)

// stampName is the file beside bin/ recording how a cached tool was made.
const stampName = "stamp.json"

// Stamp records what a cached tool was built or unpacked from. A tool is
// up to date when its stamp's Inputs equal the current recipe's hash.
type Stamp struct {
	Name      string    `json:"name"`
	Version   string    `json:"version"`
	Inputs    string    `json:"inputs"`               // sha256 of the recipe
	GoVersion string    `json:"go_version,omitempty"` // toolchain used, for information
	Built     time.Time `json:"built"`
	Seconds   float64   `json:"seconds"` // how long the build took
	// CPUSeconds is the CPU time of go mod tidy and go build, a better
	// guide to a build's cost on an idle machine than Seconds.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
}

func stampPath(dir string) string { return filepath.Join(dir, stampName) }

func readStamp(dir string) (Stamp, error) {
	var s Stamp
	b, err := os.ReadFile(stampPath(dir))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading %s: %w", stampPath(dir), err)
	}
	return s, nil
}

func writeStamp(dir string, s Stamp) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(stampPath(dir), append(b, '\n'), 0o644)
}

// upToDate reports whether dir holds the program at bin (executable) and a
// stamp for exactly these inputs; why says what is missing otherwise.
func upToDate(dir, bin, inputs string) (ok bool, why string) {
	if !isExecutable(bin) {
		return false, "not installed"
	}
	s, err := readStamp(dir)
	if err != nil {
		return false, "no stamp"
	}
	if s.Inputs != inputs {
		return false, "recipe changed"
	}
	return true, ""
}

// writeFileAtomic writes a temporary file beside path and renames it, so a
// reader never sees half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
}
