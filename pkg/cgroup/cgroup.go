package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Version is the cgroup layout of a machine.
type Version int

const (
	// V1 is the legacy layout: one hierarchy per controller. Hybrid hosts
	// (v1 controllers plus an empty unified mount) count as V1.
	V1 Version = 1
	// V2 is the unified hierarchy mounted at the root.
	V2 Version = 2
)

// String returns "v1" or "v2".
func (v Version) String() string {
	switch v {
	case V1:
		return "v1"
	case V2:
		return "v2"
	}
	return fmt.Sprintf("Version(%d)", int(v))
}

// FS locates the cgroup filesystem and /proc. The zero value means the real
// ones; tests point it at a fake tree.
type FS struct {
	// Root is where cgroups are mounted. Default "/sys/fs/cgroup".
	Root string
	// Proc is the proc filesystem. Default "/proc".
	Proc string
}

// Default is the real system.
var Default = FS{}

func (f FS) root() string {
	if f.Root == "" {
		return "/sys/fs/cgroup"
	}
	return f.Root
}

func (f FS) proc() string {
	if f.Proc == "" {
		return "/proc"
	}
	return f.Proc
}

// ErrNoCgroups reports a machine with no usable cgroup mount.
var ErrNoCgroups = errors.New("no cgroup v1 cpu/memory hierarchy or cgroup v2 mount found")

// Detect tells which layout the system uses.
func Detect() (Version, error) { return Default.Detect() }

// Create makes (or reuses) a group; see FS.Create.
func Create(rel string) (*Group, error) { return Default.Create(rel) }

// ForPID returns the group a process is in; see FS.ForPID.
func ForPID(pid int) (*Group, error) { return Default.ForPID(pid) }

// Open returns an existing group; see FS.Open.
func Open(path string) (*Group, error) { return Default.Open(path) }

// Detect tells which layout f uses: V2 when the root itself is a cgroup2
// mount, V1 when cpu or memory hierarchies are mounted below it.
func (f FS) Detect() (Version, error) {
	if exists(filepath.Join(f.root(), "cgroup.controllers")) {
		return V2, nil
	}
	for _, c := range v1Controllers {
		if _, ok := f.v1Mount(c); ok {
			return V1, nil
		}
	}
	return 0, fmt.Errorf("detecting cgroups under %s: %w", f.root(), ErrNoCgroups)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
