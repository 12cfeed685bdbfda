package image

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Program makes the files of an image that runs one host program: the
// binary at dest, the shared libraries and loader ldd lists for it (at the
// paths ldd prints, so the loader finds them), a minimal /etc and dirs.
func Program(ctx context.Context, src, dest string, dirs ...string) ([]File, error) {
	bin, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", src, err)
	}
	files := []File{{Path: dest, Data: bin, Mode: 0o755}}
	libs, err := sharedLibs(ctx, src)
	if err != nil {
		return nil, err
	}
	for _, l := range libs {
		b, err := os.ReadFile(l) // follows symlinks: the image gets the real file
		if err != nil {
			return nil, fmt.Errorf("reading %s (a library of %s): %w", l, src, err)
		}
		files = append(files, File{Path: l, Data: b, Mode: 0o755})
	}
	for _, d := range append([]string{"/tmp", "/run", "/etc"}, dirs...) {
		files = append(files, File{Path: d, Dir: true, Mode: 0o755})
	}
	return append(files, etcFiles()...), nil
}

// etcFiles are the users and groups Go's os/user look up.
func etcFiles() []File {
	return []File{
		{Path: "/etc/passwd", Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{Path: "/etc/group", Data: []byte("root:x:0:\nnobody:x:65534:\nnogroup:x:65534:\n")},
		{Path: "/etc/nsswitch.conf", Data: []byte("passwd: files\ngroup: files\nhosts: files dns\n")},
	}
}

// sharedLibs runs ldd on bin; a static binary has none.
func sharedLibs(ctx context.Context, bin string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ldd", bin).CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("not a dynamic executable")) {
			return nil, nil
		}
		return nil, fmt.Errorf("ldd %s: %w (%s)", bin, err, bytes.TrimSpace(out))
	}
	return parseLdd(out)
}

// parseLdd extracts the library paths of ldd's output: "name => /path
// (addr)" and the loader's "/path (addr)"; vdso has no file.
func parseLdd(out []byte) ([]string, error) {
	var libs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if _, after, ok := strings.Cut(line, "=>"); ok {
			line = strings.TrimSpace(after)
		}
		p, _, _ := strings.Cut(line, " (")
		switch {
		case p == "" || strings.HasPrefix(line, "linux-vdso"):
		case p == "not found":
			return nil, fmt.Errorf("ldd: a library is missing: %s", sc.Text())
		case filepath.IsAbs(p):
			libs = append(libs, p)
		}
	}
	return libs, sc.Err()
}
