//go:build linux

package load

import "syscall"

// fineSleep sleeps d (at most a few milliseconds) with microsecond
// precision. Go's timers wake an idle process up to a millisecond late,
// which would add a millisecond of the client's own making to every
// corrected latency; nanosleep with a 1ns timer slack wakes within tens of
// microseconds. It blocks the thread, which is why it is kept short.
func fineSleep(d int64) {
	const prSetTimerslack = 29
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	ts := syscall.NsecToTimespec(d)
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
