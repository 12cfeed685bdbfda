//go:build !linux

package load

import "time"

// fineTimer waits with Go's timer elsewhere than Linux.
type fineTimer struct{}

func newFineTimer() *fineTimer { return &fineTimer{} }

func (*fineTimer) sleep(d int64) {
	if d > 0 {
		time.Sleep(time.Duration(d))
	}
}

func (*fineTimer) close() {}
