package image

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// PauseTag is the pause image's tag; containerd's sandbox_image names it.
const PauseTag = "3.10-authbench1"

// pauseSource is the sandbox's PID 1: it sleeps until told to stop, and
// reaps children in case the pod shares its PID namespace.
const pauseSource = `package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
	}
}
`

// pauseFiles builds the pause program with the local Go toolchain,
// statically (CGO_ENABLED=0), in a temporary module.
func pauseFiles(ctx context.Context, o Options) ([]File, []string, error) {
	work, err := os.MkdirTemp("", "authbench-pause-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(work)
	for name, data := range map[string]string{"go.mod": "module pause\n\ngo 1.24\n", "main.go": pauseSource} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(data), 0o644); err != nil {
			return nil, nil, err
		}
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", "pause", ".")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("building pause: %w: %s", err, out)
	}
	bin, err := os.ReadFile(filepath.Join(work, "pause"))
	if err != nil {
		return nil, nil, err
	}
	return []File{{Path: "/pause", Data: bin, Mode: 0o755}}, []string{"/pause"}, nil
}
