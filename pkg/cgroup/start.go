package cgroup

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
)

// joinScript writes the shell's pid to each cgroup.procs file given, then
// execs the real command in the same process. Its arguments: the number of
// files, the files, then the command's path and arguments.
const joinScript = `n=$1; shift
while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 126; shift; n=$((n-1)); done
exec "$@"`

// Start starts cmd inside the group from its first instruction, so that
// everything it allocates is charged to the group. Adding a running process
// instead (Add) leaves the memory it already holds charged to its old group
// on v1, where charges do not move (move_charge_at_immigrate is gone from
// recent kernels). cmd runs through /bin/sh, which joins the group and then
// execs it: the pid, the process name and the exit status are cmd's own.
func (g *Group) Start(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	name := cmd.Path
	dirs := g.distinctDirs()
	args := []string{"sh", "-c", joinScript, "sh", strconv.Itoa(len(dirs))}
	for _, d := range dirs {
		args = append(args, filepath.Join(d, "cgroup.procs"))
	}
	args = append(args, cmd.Path)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = "/bin/sh", args
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s in cgroup %s: %w", name, g.Path(), err)
	}
	return nil
}
