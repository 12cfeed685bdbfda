package toolcache

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// KeycloakVersion is the Keycloak release the lab runs, from Maven Central.
const KeycloakVersion = "26.7.3"

const (
	keycloakName     = stacks.ProgramKeycloak
	keycloakArtifact = "org.keycloak:keycloak-quarkus-dist:" + KeycloakVersion + ":tar.gz"
)

// KeycloakDir is where Keycloak is unpacked: CACHE/tools/keycloak-VERSION
// (bin/kc.sh, lib/, conf/, ...).
func KeycloakDir() string { return toolDir(CacheDir(), keycloakName, KeycloakVersion) }

func keycloakScript(cache string) string {
	return filepath.Join(toolDir(cache, keycloakName, KeycloakVersion), "bin", "kc.sh")
}

func keycloakInputs() string {
	sum := sha256.Sum256([]byte("recipe " + recipeRevision + "\x00artifact " + keycloakArtifact))
	return hex.EncodeToString(sum[:])
}

func keycloakStep(in *installer) step {
	dir := toolDir(in.cache, keycloakName, KeycloakVersion)
	return step{
		name: keycloakName, version: KeycloakVersion, system: true, verb: "downloading",
		probe: func(context.Context) (string, bool, string, error) {
			ok, why := upToDate(dir, keycloakScript(in.cache), keycloakInputs())
			return keycloakScript(in.cache), ok, why, nil
		},
		install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
			return installKeycloak(ctx, in.cache, s, log)
		},
	}
}

// installKeycloak fetches the distribution with Maven (into ~/.m2, then a
// copy in a temporary directory, so a custom localRepository is no concern),
// unpacks it beside its final place and renames it there.
func installKeycloak(ctx context.Context, cache string, s stepLog, log io.Writer) (string, error) {
	start := time.Now()
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("finding mvn (the apt step installs maven): %w", err)
	}
	tmp, err := os.MkdirTemp(mkdirAll(filepath.Join(cache, "tmp")), "keycloak-")
	if err != nil {
		return "", fmt.Errorf("creating download directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	get := command{name: mvn, args: []string{"-B", "--no-transfer-progress", "dependency:copy",
		"-Dartifact=" + keycloakArtifact, "-Dtransitive=false", "-DoutputDirectory=" + tmp}}
	s.setDoing("downloading " + keycloakArtifact + " (mvn)")
	if err := get.run(ctx, log); err != nil {
		return "", err
	}
	dir := toolDir(cache, keycloakName, KeycloakVersion)
	unpacked := dir + ".unpacking"
	os.RemoveAll(unpacked)
	defer os.RemoveAll(unpacked)
	tgz := filepath.Join(tmp, "keycloak-quarkus-dist-"+KeycloakVersion+".tar.gz")
	fmt.Fprintf(log, "unpacking %s into %s\n", tgz, unpacked)
	s.setDoing("unpacking " + filepath.Base(tgz))
	if err := untarGz(tgz, unpacked, 1); err != nil {
		return "", fmt.Errorf("unpacking %s: %w", tgz, err)
	}
	if !isExecutable(filepath.Join(unpacked, "bin", "kc.sh")) {
		return "", fmt.Errorf("%s has no bin/kc.sh", tgz)
	}
	// A stale or half-written install is replaced whole.
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("removing old %s: %w", dir, err)
	}
	if err := os.Rename(unpacked, dir); err != nil {
		return "", fmt.Errorf("moving Keycloak into place: %w", err)
	}
	return keycloakScript(cache), writeStamp(dir, Stamp{Name: keycloakName, Version: KeycloakVersion,
		Inputs: keycloakInputs(), Built: time.Now().UTC(), Seconds: time.Since(start).Seconds()})
}

func mkdirAll(dir string) string {
	os.MkdirAll(dir, 0o755)
	return dir
}

// untarGz unpacks a .tar.gz into dest, dropping the first strip path
// elements (the archive's keycloak-VERSION/ directory). Entries escaping
// dest are refused.
func untarGz(archive, dest string, strip int) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := stripPath(h.Name, strip)
		if rel == "" {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("archive entry %q leaves the destination", h.Name)
		}
		if err := writeEntry(tr, h, dest, rel); err != nil {
			return fmt.Errorf("unpacking %s: %w", h.Name, err)
		}
	}
}

func stripPath(name string, n int) string {
	parts := strings.Split(strings.Trim(filepath.ToSlash(name), "/"), "/")
	if len(parts) <= n {
		return ""
	}
	return filepath.FromSlash(strings.Join(parts[n:], "/"))
}

func writeEntry(r io.Reader, h *tar.Header, dest, rel string) error {
	path := filepath.Join(dest, rel)
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(path, 0o755)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, h.FileInfo().Mode().Perm()|0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, r); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	case tar.TypeSymlink:
		if filepath.IsAbs(h.Linkname) || !filepath.IsLocal(filepath.Join(filepath.Dir(rel), h.Linkname)) {
			return fmt.Errorf("symlink to %q leaves the destination", h.Linkname)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.Symlink(h.Linkname, path)
	default:
		return nil // devices, fifos, hard links: none in the distribution
	}
}
