package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killWait bounds how long Kill and Remove wait for processes to go.
const killWait = 5 * time.Second

// Add moves process pid (all its threads) into the group, in every
// hierarchy on v1.
func (g *Group) Add(pid int) error {
	for _, d := range g.distinctDirs() {
		if err := writeFile(filepath.Join(d, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			return fmt.Errorf("adding pid %d to cgroup %s: %w", pid, d, err)
		}
	}
	return nil
}

// PIDs lists the processes in the group and in its descendant groups,
// sorted, each once (on v1 the union over the hierarchies).
func (g *Group) PIDs() ([]int, error) {
	seen := map[int]bool{}
	for _, d := range g.distinctDirs() {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // a child removed while walking
				}
				return err
			}
			if !e.IsDir() {
				return nil
			}
			return readPIDs(filepath.Join(p, "cgroup.procs"), seen)
		})
		if err != nil {
			return nil, fmt.Errorf("listing processes of cgroup %s: %w", d, err)
		}
	}
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out, nil
}

func readPIDs(file string, into map[int]bool) error {
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			into[n] = true
		}
	}
	return nil
}

// Kill sends SIGKILL to every process in the group and its descendants
// (children of children included, since they inherit the group) and waits
// until they are gone. On v2 it uses cgroup.kill when the kernel has it,
// which also catches processes forked during the kill. It refuses a root
// group and a group holding the caller, which would kill far too much.
func (g *Group) Kill() error {
	if err := g.checkKillable(); err != nil {
		return err
	}
	if d, ok := g.dirs[unifiedKey]; ok && g.version == V2 {
		if f := filepath.Join(d, "cgroup.kill"); exists(f) {
			if err := writeFile(f, "1"); err != nil {
				return fmt.Errorf("killing cgroup %s: %w", d, err)
			}
		}
	}
	deadline := time.Now().Add(killWait)
	for {
		pids, err := g.PIDs()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("killing cgroup %s: %d processes still there after %s", g.Path(), len(pids), killWait)
		}
		for _, p := range pids {
			if p == os.Getpid() {
				return fmt.Errorf("killing cgroup %s: the calling process is in it", g.Path())
			}
			if err := syscall.Kill(p, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("killing pid %d of cgroup %s: %w", p, g.Path(), err)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkKillable refuses groups whose processes include the caller's own
// cgroup or a whole hierarchy.
func (g *Group) checkKillable() error {
	own, _ := g.fs.self()
	for c, r := range g.rels {
		if r == "/" {
			return fmt.Errorf("refusing to kill the root cgroup (%s hierarchy)", c)
		}
		if o, ok := own[c]; ok && (o == r || strings.HasPrefix(o, r+"/")) {
			return fmt.Errorf("refusing to kill cgroup %s: it contains the calling process", g.Path())
		}
	}
	return nil
}

// Remove kills what is left in the group, then removes it and its
// descendant groups in every hierarchy. Removing a group that is already
// gone is not an error.
func (g *Group) Remove() error {
	pids, err := g.PIDs()
	if err != nil {
		return err
	}
	if len(pids) > 0 {
		if err := g.Kill(); err != nil {
			return err
		}
	}
	for _, d := range g.distinctDirs() {
		if err := removeTree(d); err != nil {
			return fmt.Errorf("removing cgroup %s: %w", d, err)
		}
	}
	return nil
}

// removeTree rmdirs d's descendant directories deepest first, then d. A
// cgroup directory's files are not removable and go with it. An exiting
// process can keep a group busy for a moment, hence the retries.
func removeTree(d string) error {
	var dirs []string
	err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if e.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(dirs, func(i, j int) bool { return depth(dirs[i]) > depth(dirs[j]) })
	for _, p := range dirs {
		if err := rmdirRetry(p); err != nil {
			return err
		}
	}
	return nil
}

func depth(p string) int { return strings.Count(path.Clean(p), "/") }

func rmdirRetry(p string) error {
	deadline := time.Now().Add(killWait)
	for {
		err := syscall.Rmdir(p)
		switch {
		case err == nil || errors.Is(err, syscall.ENOENT):
			return nil
		case errors.Is(err, syscall.ENOTEMPTY) && isFakeDir(p):
			return os.RemoveAll(p)
		case errors.Is(err, syscall.EBUSY) && time.Now().Before(deadline):
			time.Sleep(20 * time.Millisecond)
		default:
			return &os.PathError{Op: "rmdir", Path: p, Err: err}
		}
	}
}

// isFakeDir tells a test tree (regular files inside) from cgroupfs, whose
// directories rmdir with their interface files still listed.
func isFakeDir(p string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(p, &st) != nil {
		return false
	}
	const cgroupMagic, cgroup2Magic = 0x27e0eb, 0x63677270
	return st.Type != cgroupMagic && st.Type != cgroup2Magic
}

// RemoveIfUnused removes the group in every hierarchy where it holds no
// process and no child group, and leaves it alone where it does: a parent
// shared by several labs goes with the last of them, never with a
// neighbour's processes.
func (g *Group) RemoveIfUnused() {
	for _, d := range g.distinctDirs() {
		_ = syscall.Rmdir(d) // EBUSY or ENOTEMPTY: still in use
	}
}
