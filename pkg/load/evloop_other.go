//go:build !linux

package load

// epollAvailable is false off Linux: attacks take IONetpoll.
func epollAvailable() bool { return false }

// uringAvailable is false off Linux.
func uringAvailable() bool { return false }

// runLoops is never called off Linux (ioPath never picks IOEpoll).
func runLoops(at *attack, _ *target) {
	for _, w := range at.workers {
		w.at.interrupted.Store(true)
	}
}
