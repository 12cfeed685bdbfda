package toolcache

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"time"
)

// Versions of the search servers `authbench publish` is tested against,
// from Maven Central's integ-test zips (plain HTTP, no security plugin).
const (
	OpenSearchVersion    = "2.18.0"
	ElasticsearchVersion = "8.15.0"
)

// SearchUser is the system account the search servers run as: both refuse
// to run as root. It is created by the install step, as a Debian package
// would create its service user.
const SearchUser = "authbench-search"

// searchRoot is where root installs the search servers: under root's home
// (mode 0700) SearchUser could read nothing.
const searchRoot = "/var/lib/authbench-search"

// SearchServer is one installable search server.
type SearchServer struct {
	// Name is "opensearch" or "elasticsearch"; Version its release.
	Name, Version string
	artifact      string
}

// OpenSearch and Elasticsearch are the two search servers.
var (
	OpenSearch    = SearchServer{"opensearch", OpenSearchVersion, "org.opensearch.distribution.integ-test-zip:opensearch:" + OpenSearchVersion + ":zip"}
	Elasticsearch = SearchServer{"elasticsearch", ElasticsearchVersion, "org.elasticsearch.distribution.integ-test-zip:elasticsearch:" + ElasticsearchVersion + ":zip"}
)

// Dir is where the server is unpacked (bin/, config/, lib/, modules/):
// /var/lib/authbench-search/NAME-VERSION when installed by root, else
// CACHE/tools/NAME-VERSION.
func (s SearchServer) Dir() string { return s.dirIn(CacheDir()) }

func (s SearchServer) dirIn(cache string) string {
	if os.Geteuid() == 0 {
		return filepath.Join(searchRoot, s.Name+"-"+s.Version)
	}
	return toolDir(cache, s.Name, s.Version)
}

// Bin is the start script.
func (s SearchServer) Bin() string { return filepath.Join(s.Dir(), "bin", s.Name) }

// RunAs is the account to start the server as: SearchUser when this
// process is root, else "" (the current user).
func (s SearchServer) RunAs() string {
	if os.Geteuid() == 0 {
		return SearchUser
	}
	return ""
}

func (s SearchServer) inputs() string {
	sum := sha256.Sum256([]byte("recipe " + recipeRevision + "\x00artifact " + s.artifact + "\x00user " + SearchUser))
	return hex.EncodeToString(sum[:])
}

// searchSteps are the optional steps installing both servers.
func searchSteps(in *installer) []step {
	var steps []step
	for _, s := range []SearchServer{OpenSearch, Elasticsearch} {
		dir := s.dirIn(in.cache)
		bin := filepath.Join(dir, "bin", s.Name)
		steps = append(steps, step{
			name: s.Name, version: s.Version, optional: true, system: true, verb: "downloading",
			probe: func(context.Context) (string, bool, string, error) {
				ok, why := upToDate(dir, bin, s.inputs())
				return bin, ok, why, nil
			},
			install: func(ctx context.Context, sl stepLog, log io.Writer) (string, error) {
				return installSearch(ctx, in.cache, s, sl, log)
			},
		})
	}
	return steps
}

// installSearch downloads the zip with Maven, unpacks it beside its final
// place, hands it to SearchUser (when root) and renames it into place.
func installSearch(ctx context.Context, cache string, s SearchServer, sl stepLog, log io.Writer) (string, error) {
	start := time.Now()
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("finding mvn (the apt step installs maven): %w", err)
	}
	uid, gid, err := ensureSearchUser(ctx, log)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(mkdirAll(filepath.Join(cache, "tmp")), s.Name+"-")
	if err != nil {
		return "", fmt.Errorf("creating download directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	get := command{name: mvn, args: []string{"-B", "--no-transfer-progress", "dependency:copy",
		"-Dartifact=" + s.artifact, "-Dtransitive=false", "-DoutputDirectory=" + tmp}}
	sl.setDoing("downloading " + s.artifact + " (mvn)")
	if err := get.run(ctx, log); err != nil {
		return "", err
	}
	dir := s.dirIn(cache)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", filepath.Dir(dir), err)
	}
	unpacked := dir + ".unpacking"
	os.RemoveAll(unpacked)
	defer os.RemoveAll(unpacked)
	archive := filepath.Join(tmp, s.Name+"-"+s.Version+".zip")
	fmt.Fprintf(log, "unpacking %s into %s\n", archive, unpacked)
	sl.setDoing("unpacking " + filepath.Base(archive))
	if err := unzip(archive, unpacked, 1); err != nil {
		return "", fmt.Errorf("unpacking %s: %w", archive, err)
	}
	bin := filepath.Join(unpacked, "bin", s.Name)
	if !isExecutable(bin) {
		return "", fmt.Errorf("%s has no bin/%s", archive, s.Name)
	}
	if uid >= 0 {
		if err := chownTree(unpacked, uid, gid); err != nil {
			return "", fmt.Errorf("giving %s to %s: %w", unpacked, SearchUser, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("removing old %s: %w", dir, err)
	}
	if err := os.Rename(unpacked, dir); err != nil {
		return "", fmt.Errorf("moving %s into place: %w", s.Name, err)
	}
	return filepath.Join(dir, "bin", s.Name), writeStamp(dir, Stamp{Name: s.Name, Version: s.Version,
		Inputs: s.inputs(), Built: time.Now().UTC(), Seconds: time.Since(start).Seconds()})
}

// ensureSearchUser creates SearchUser when running as root and returns
// its ids; (-1, -1) when not root (the servers then run as the caller).
func ensureSearchUser(ctx context.Context, log io.Writer) (int, int, error) {
	if os.Geteuid() != 0 {
		return -1, -1, nil
	}
	if _, err := user.Lookup(SearchUser); err != nil {
		add := command{name: "useradd", args: []string{"--system", "--user-group", "--no-create-home",
			"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", SearchUser}}
		if err := add.run(ctx, log); err != nil {
			return 0, 0, fmt.Errorf("creating system user %s: %w", SearchUser, err)
		}
	}
	return SearchUserIDs()
}

// SearchUserIDs returns SearchUser's uid and gid.
func SearchUserIDs() (int, int, error) {
	u, err := user.Lookup(SearchUser)
	if err != nil {
		return 0, 0, fmt.Errorf("looking up %s (run `authbench lab install --optional` as root): %w", SearchUser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("user %s has non-numeric ids %s:%s", SearchUser, u.Uid, u.Gid)
	}
	return uid, gid, nil
}

func chownTree(root string, uid, gid int) error {
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// unzip unpacks a zip into dest, dropping the first strip path elements;
// entries escaping dest are refused. Modes (executables) are kept.
func unzip(archive, dest string, strip int) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		rel := stripPath(f.Name, strip)
		if rel == "" {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("archive entry %q leaves the destination", f.Name)
		}
		if err := unzipEntry(f, filepath.Join(dest, rel)); err != nil {
			return fmt.Errorf("unpacking %s: %w", f.Name, err)
		}
	}
	return nil
}

func unzipEntry(f *zip.File, path string) error {
	if f.FileInfo().IsDir() {
		return os.MkdirAll(path, 0o755)
	}
	if !f.Mode().IsRegular() {
		return nil // no links or devices in these distributions
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, f.Mode().Perm()|0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
