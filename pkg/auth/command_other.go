//go:build !unix

package auth

import "os/exec"

// killGroup relies on exec's default cancellation where process groups do
// not exist.
func killGroup(*exec.Cmd) {}
