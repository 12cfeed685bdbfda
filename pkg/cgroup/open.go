package cgroup

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// ForPID returns the group process pid is in, from /proc/PID/cgroup: on v1
// its cpu, cpuacct and memory groups (which may differ), on v2 its one group.
func (f FS) ForPID(pid int) (*Group, error) {
	v, err := f.Detect()
	if err != nil {
		return nil, err
	}
	m, err := f.membership(pid)
	if err != nil {
		return nil, err
	}
	g := &Group{fs: f, version: v, dirs: map[string]string{}, rels: map[string]string{}}
	if v == V2 {
		r, ok := m[unifiedKey]
		if !ok {
			return nil, fmt.Errorf("pid %d: no cgroup v2 entry in /proc/%d/cgroup", pid, pid)
		}
		g.dirs[unifiedKey], g.rels[unifiedKey] = filepath.Join(f.root(), r), r
		return g, nil
	}
	for _, c := range v1Controllers {
		mount, ok := f.v1Mount(c)
		r, in := m[c]
		if !ok || !in {
			continue
		}
		if d := filepath.Join(mount, r); exists(d) {
			g.dirs[c], g.rels[c] = d, r
		}
	}
	if len(g.dirs) == 0 {
		return nil, fmt.Errorf("pid %d: none of its cpu, cpuacct, memory cgroups is visible under %s", pid, f.root())
	}
	return g, nil
}

// Open returns an existing group. path is one of:
//   - what Group.Path returned ("/a/b" or "cpu,cpuacct:/a/b;memory:/m/a/b");
//   - a path inside the hierarchy ("/kubepods/pod1/c1" or "a/b"), looked up
//     at the root of each hierarchy and then under the caller's own cgroup
//     (where Create puts groups);
//   - an absolute directory under the root ("/sys/fs/cgroup/memory/a/b"),
//     which on v1 names that hierarchy only.
func (f FS) Open(p string) (*Group, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return nil, fmt.Errorf("opening cgroup: empty path")
	}
	v, err := f.Detect()
	if err != nil {
		return nil, err
	}
	want := f.wanted(v, p)
	own, _ := f.self() // best effort: only a fallback location
	g := &Group{fs: f, version: v, dirs: map[string]string{}, rels: map[string]string{}}
	for c, r := range want {
		mount := f.root()
		if v == V1 {
			var ok bool
			if mount, ok = f.v1Mount(c); !ok {
				continue
			}
		}
		for _, cand := range []string{r, path.Join(own[c], r)} {
			if d := filepath.Join(mount, cand); exists(d) {
				g.dirs[c], g.rels[c] = d, cand
				break
			}
		}
	}
	if len(g.dirs) == 0 {
		return nil, fmt.Errorf("opening cgroup %q: not found under %s", p, f.root())
	}
	return g, nil
}

// wanted maps each controller to the path requested for it.
func (f FS) wanted(v Version, p string) map[string]string {
	keys := v1Controllers
	if v == V2 {
		keys = []string{unifiedKey}
	}
	out := map[string]string{}
	if rest, ok := strings.CutPrefix(p, f.root()+"/"); ok {
		if v == V2 {
			out[unifiedKey] = path.Clean("/" + rest)
			return out
		}
		mountName, inner, _ := strings.Cut(rest, "/")
		for _, c := range strings.Split(mountName, ",") {
			out[c] = path.Clean("/" + inner)
		}
		return out
	}
	if v == V1 && isCompound(p) {
		if m, err := parseProcCgroup("0:" + strings.ReplaceAll(p, ";", "\n0:")); err == nil {
			delete(m, unifiedKey)
			return m
		}
	}
	for _, c := range keys {
		out[c] = path.Clean("/" + p)
	}
	return out
}

// isCompound tells Path's multi-hierarchy form ("cpu:/a;memory:/b") from a
// plain path that happens to contain a colon.
func isCompound(p string) bool {
	ctrl, _, ok := strings.Cut(p, ":")
	if !ok || ctrl == "" {
		return false
	}
	for _, r := range ctrl {
		if (r < 'a' || r > 'z') && r != ',' && r != '_' && r != '=' {
			return false
		}
	}
	return true
}
