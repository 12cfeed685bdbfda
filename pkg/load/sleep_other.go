//go:build !linux

package load

import "time"

// fineSleep sleeps d; elsewhere than Linux only Go's timer is used.
func fineSleep(d int64) { time.Sleep(time.Duration(d)) }
