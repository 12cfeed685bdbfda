package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Group is one logical cgroup: on v1 the same group in the cpu, cpuacct and
// memory hierarchies, on v2 one directory. Controllers whose hierarchy is not
// mounted, or in which a process-derived group does not exist, are absent:
// the methods touching them report an error and Stats leaves them zero.
type Group struct {
	fs      FS
	version Version
	// dirs maps a controller (unifiedKey on v2) to its absolute directory.
	dirs map[string]string
	// rels maps the same keys to the path inside the hierarchy, "/..." form.
	rels map[string]string
}

// Version is the layout the group lives in.
func (g *Group) Version() Version { return g.version }

// Path identifies the group so that Open finds it again, also from another
// process: the path inside the hierarchy ("/authbench/lab-1a2b/oauth2-proxy"),
// or, on v1 when the hierarchies hold it at different paths, each
// hierarchy's path in /proc/PID/cgroup's style joined by ";"
// ("cpu,cpuacct:/authbench/x;memory:/process_api/7f/authbench/x").
func (g *Group) Path() string {
	if g.version == V2 {
		return g.rels[unifiedKey]
	}
	var order []string
	byPath := map[string][]string{}
	for _, c := range v1Controllers {
		if r, ok := g.rels[c]; ok {
			if _, seen := byPath[r]; !seen {
				order = append(order, r)
			}
			byPath[r] = append(byPath[r], c)
		}
	}
	if len(order) == 1 {
		return order[0]
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = strings.Join(byPath[r], ",") + ":" + r
	}
	return strings.Join(parts, ";")
}

// Dir returns the absolute directory of a controller ("cpu", "cpuacct",
// "memory"; any name on v2) and whether the group has it.
func (g *Group) Dir(controller string) (string, bool) {
	if g.version == V2 {
		d, ok := g.dirs[unifiedKey]
		return d, ok
	}
	d, ok := g.dirs[controller]
	return d, ok
}

// distinctDirs lists each directory once (co-mounted controllers share one).
func (g *Group) distinctDirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range g.dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// Create makes the group rel (e.g. "authbench/lab-1a2b/oauth2-proxy") under
// the calling process's own cgroup in every hierarchy, with its parents. It
// is idempotent. On v2 it enables the cpu and memory controllers on the way
// down; that fails when the caller's own cgroup holds processes (the
// no-internal-process rule) unless it is the root, and the error says so.
func (f FS) Create(rel string) (*Group, error) {
	if strings.Contains(rel, "..") {
		return nil, fmt.Errorf("creating cgroup %q: \"..\" not allowed", rel)
	}
	rel = strings.Trim(path.Clean("/"+rel), "/")
	if rel == "" {
		return nil, fmt.Errorf("creating cgroup %q: want a relative path such as authbench/lab/x", rel)
	}
	v, err := f.Detect()
	if err != nil {
		return nil, err
	}
	own, err := f.self()
	if err != nil {
		return nil, err
	}
	if v == V2 {
		return f.createV2(rel, own[unifiedKey])
	}
	return f.createV1(rel, own)
}

func (f FS) createV1(rel string, own map[string]string) (*Group, error) {
	g := &Group{fs: f, version: V1, dirs: map[string]string{}, rels: map[string]string{}}
	for _, c := range v1Controllers {
		mount, ok := f.v1Mount(c)
		if !ok {
			continue
		}
		base := f.existingBase(mount, own[c])
		r := path.Join(base, rel)
		d := filepath.Join(mount, r)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("creating cgroup %s: %w", d, err)
		}
		g.dirs[c], g.rels[c] = d, r
	}
	if _, ok := g.dirs["cpu"]; !ok {
		return nil, fmt.Errorf("creating cgroup %s: no v1 cpu hierarchy under %s", rel, f.root())
	}
	return g, nil
}

// existingBase is the caller's own cgroup when it is visible under mount.
// Without a cgroup namespace a container sees its host path in
// /proc/self/cgroup while the mount's root is its own cgroup; use the root.
func (f FS) existingBase(mount, own string) string {
	if own == "" || !exists(filepath.Join(mount, own)) {
		return "/"
	}
	return own
}

func (f FS) createV2(rel, own string) (*Group, error) {
	base := f.existingBase(f.root(), own)
	cur := base
	for _, part := range strings.Split(rel, "/") {
		parent := filepath.Join(f.root(), cur)
		if err := enableControllers(parent); err != nil {
			return nil, fmt.Errorf("creating cgroup %s: enabling cpu and memory in %s "+
				"(on v2 a cgroup with processes cannot delegate controllers: run authbench "+
				"in its own leaf, e.g. under systemd-run --scope -p Delegate=yes): %w", rel, parent, err)
		}
		cur = path.Join(cur, part)
		if err := os.Mkdir(filepath.Join(f.root(), cur), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("creating cgroup %s: %w", cur, err)
		}
	}
	return &Group{fs: f, version: V2,
		dirs: map[string]string{unifiedKey: filepath.Join(f.root(), cur)},
		rels: map[string]string{unifiedKey: cur}}, nil
}

// enableControllers turns on cpu and memory for dir's children when dir
// offers them and they are not on yet, so that a no-op never hits EBUSY.
func enableControllers(dir string) error {
	offered, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil // not a cgroup directory we can inspect (fake trees): nothing to enable
	}
	enabled, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	var want []string
	for _, c := range []string{"cpu", "memory"} {
		if hasWord(string(offered), c) && !hasWord(string(enabled), c) {
			want = append(want, "+"+c)
		}
	}
	if len(want) == 0 {
		return nil
	}
	return writeFile(filepath.Join(dir, "cgroup.subtree_control"), strings.Join(want, " "))
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// IsRoot reports whether the group is its hierarchy's root in every
// controller it has (on v1 a process often sits at the root of cpu and in a
// sandbox's group for memory; that is not root). A root group's counters
// are the whole machine's.
func (g *Group) IsRoot() bool {
	for _, r := range g.rels {
		if r != "/" {
			return false
		}
	}
	return true
}

// IsRootOf reports whether the group is the root of controller's
// hierarchy, e.g. whether its cpu.stat is the machine's rather than its own.
func (g *Group) IsRootOf(controller string) bool {
	key := controller
	if g.version == V2 {
		key = unifiedKey
	}
	r, ok := g.rels[key]
	return !ok || r == "/"
}
