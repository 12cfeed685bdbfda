//go:build unix

package auth

import (
	"os/exec"
	"syscall"
)

// killGroup makes a cancelled command take its children with it (a shell
// running `oc`, say), so that nothing holds its output open.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
