//go:build linux

package load

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRxTime checks how an answer's end is read from the kernel's receive
// timestamp: taken when it lies between the request's write and now,
// clamped to the write when it is a hair before it (two clocks), and
// replaced by now when it is missing or belongs to nothing of this request.
func TestRxTime(t *testing.T) {
	l := &evloop{}
	l.clock()
	base := now()
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		name  string
		stamp bool
		rx    int64 // engine time stamped, relative to the write
		want  string
	}{
		{"inside", true, 2 * ms, "stamp"},
		{"hair before the write", true, -ms / 2, "write"},
		{"long before the write", true, -5 * ms, "now"},
		{"in the future", true, time.Hour.Nanoseconds(), "now"},
		{"no stamp", false, 0, "now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &evconn{l: l, rxm: new(rxmeta), t0: base - 10*ms}
			c.rxm.prepare(make([]byte, 8))
			if tc.stamp {
				stampRx(c.rxm, c.t0+tc.rx+l.wallOff)
			}
			before := now()
			got := c.rxTime()
			after := now()
			switch tc.want {
			case "stamp":
				if got != c.t0+tc.rx {
					t.Errorf("got %d, want the stamp %d", got, c.t0+tc.rx)
				}
			case "write":
				if got != c.t0 {
					t.Errorf("got %d, want the write %d", got, c.t0)
				}
			case "now":
				if got < before || got > after {
					t.Errorf("got %d, want now (%d..%d)", got, before, after)
				}
			}
		})
	}
}

// stampRx writes a receive timestamp (wall ns) as the kernel does.
func stampRx(m *rxmeta, wall int64) {
	h := (*unix.Cmsghdr)(unsafe.Pointer(&m.ctl[0]))
	h.Level, h.Type = unix.SOL_SOCKET, unix.SO_TIMESTAMPNS
	h.SetLen(unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))))
	*(*unix.Timespec)(unsafe.Pointer(&m.ctl[unix.SizeofCmsghdr])) = unix.NsecToTimespec(wall)
	m.msg.SetControllen(len(m.ctl))
}
