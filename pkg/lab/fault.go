package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// Links returns the links a fault can be set on, in the order `lab fault`
// names them.
func Links() []string {
	return []string{results.LinkAPIServer, results.LinkKeycloak, results.LinkClient}
}

// ParseLink reads a link name as `lab fault LINK` takes it.
func ParseLink(s string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, k := range Links() {
		if l == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown link %q: want %s", s, strings.Join(Links(), ", "))
}

// Bounds of a fault: beyond them the figure is a typo, or a fault no run
// could measure.
const (
	// MaxFaultDelay bounds Delay: a minute per round trip already times
	// out every client the lab runs.
	MaxFaultDelay = time.Minute
	// MaxFaultFor bounds For.
	MaxFaultFor = 24 * time.Hour
	// MaxFaultBandwidthKBps bounds BandwidthKBps (10 GB/s, beyond loopback).
	MaxFaultBandwidthKBps = 10 << 20
)

// Fault is what a fault proxy does to one link. Its kinds combine as
// follows (Validate checks it):
//   - Delay, with an optional Jitter no larger than it, adds Delay ± Jitter
//     to each round trip: half of it on the way in, half on the way out;
//   - BandwidthKBps limits each direction to that many KB/s, alone or with
//     a delay;
//   - Down refuses new connections and cuts open ones; it excludes the
//     other kinds (a link that is down carries nothing to delay);
//   - For, with any kind, is how long the fault lasts (see Lab.HoldFault);
//     zero is until cleared.
//
// Toxiproxy's toxics count whole milliseconds, so Delay and Jitter must be
// whole milliseconds. A fault set on a link replaces the link's previous
// fault.
//
// In JSON it reads as the fault log's events do (delay_ms, ...).
type Fault struct {
	Link          string
	Delay         time.Duration
	Jitter        time.Duration
	Down          bool
	BandwidthKBps int64
	For           time.Duration
}

// faultJSON is Fault's JSON form, the fault log's field names.
type faultJSON struct {
	Link          string  `json:"link"`
	DelayMs       float64 `json:"delay_ms,omitempty"`
	JitterMs      float64 `json:"jitter_ms,omitempty"`
	Down          bool    `json:"down,omitempty"`
	BandwidthKBps int64   `json:"bandwidth_kbps,omitempty"`
	ForMs         float64 `json:"for_ms,omitempty"`
}

// MarshalJSON writes the fault with durations in milliseconds.
func (f Fault) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultJSON{Link: f.Link, DelayMs: ms(f.Delay), JitterMs: ms(f.Jitter), Down: f.Down,
		BandwidthKBps: f.BandwidthKBps, ForMs: ms(f.For)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = FaultOf(results.FaultEvent{Link: j.Link, DelayMs: j.DelayMs, JitterMs: j.JitterMs, Down: j.Down,
		BandwidthKBps: j.BandwidthKBps, ForMs: j.ForMs})
	return nil
}

// FaultOf is the fault a set event records.
func FaultOf(ev results.FaultEvent) Fault {
	d := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return Fault{Link: ev.Link, Delay: d(ev.DelayMs), Jitter: d(ev.JitterMs), Down: ev.Down,
		BandwidthKBps: ev.BandwidthKBps, For: d(ev.ForMs)}
}

// ErrNoFaultProxy reports a link the lab runs no fault proxy on: the
// client link when `lab up` was given neither --client-link nor
// --client-rtt, or a platform that has none yet.
var ErrNoFaultProxy = errors.New("no fault proxy on this link")

// Validate checks a fault as `lab fault` and `lab up --client-rtt` give it;
// the error names the flag.
func (f Fault) Validate() error {
	if _, err := ParseLink(f.Link); err != nil {
		return err
	}
	if err := f.validateDelay(); err != nil {
		return err
	}
	switch {
	case f.BandwidthKBps < 0 || f.BandwidthKBps > MaxFaultBandwidthKBps:
		return fmt.Errorf("--bandwidth %dKB/s: want more than 0 up to %dKB/s", f.BandwidthKBps, MaxFaultBandwidthKBps)
	case f.For < 0 || f.For > MaxFaultFor:
		return fmt.Errorf("--for %s: want 0 (until cleared) up to %s", f.For, MaxFaultFor)
	case f.For%time.Millisecond != 0:
		return fmt.Errorf("--for %s: want whole milliseconds", f.For)
	case f.Down && (f.Delay > 0 || f.BandwidthKBps > 0):
		return errors.New("--down excludes --delay, --jitter and --bandwidth: a link that is down carries nothing")
	case !f.Down && f.Delay == 0 && f.BandwidthKBps == 0:
		return errors.New("no fault given: want --delay D, --down or --bandwidth R (or --clear)")
	}
	return nil
}

func (f Fault) validateDelay() error {
	switch {
	case f.Delay < 0 || f.Delay > MaxFaultDelay:
		return fmt.Errorf("--delay %s: want 0 up to %s", f.Delay, MaxFaultDelay)
	case f.Jitter < 0:
		return fmt.Errorf("--jitter %s: want 0 or more", f.Jitter)
	case f.Jitter > 0 && f.Delay == 0:
		return fmt.Errorf("--jitter %s needs --delay: jitter varies a delay", f.Jitter)
	case f.Jitter > f.Delay:
		return fmt.Errorf("--jitter %s is larger than --delay %s: a round trip cannot get shorter than none", f.Jitter, f.Delay)
	case f.Delay%time.Millisecond != 0 || f.Jitter%time.Millisecond != 0:
		return fmt.Errorf("--delay %s --jitter %s: the fault proxy delays by whole milliseconds", f.Delay, f.Jitter)
	}
	return nil
}

// Event is the fault log's record of setting f at at.
func (f Fault) Event(at time.Time) results.FaultEvent {
	return results.FaultEvent{At: at, Link: f.Link, Action: results.FaultSet,
		DelayMs: ms(f.Delay), JitterMs: ms(f.Jitter), Down: f.Down, ForMs: ms(f.For), BandwidthKBps: f.BandwidthKBps}
}

// String describes the fault as `lab fault` flags ("delay 200ms ± 20ms").
func (f Fault) String() string {
	var parts []string
	if f.Down {
		parts = append(parts, "down")
	}
	if f.Delay > 0 {
		d := "delay " + f.Delay.String()
		if f.Jitter > 0 {
			d += " ± " + f.Jitter.String()
		}
		parts = append(parts, d)
	}
	if f.BandwidthKBps > 0 {
		parts = append(parts, fmt.Sprintf("bandwidth %dKB/s", f.BandwidthKBps))
	}
	if f.For > 0 {
		parts = append(parts, "for "+f.For.String())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ClearEvent is the fault log's record of clearing link at at.
func ClearEvent(link string, at time.Time) results.FaultEvent {
	return results.FaultEvent{At: at, Link: link, Action: results.FaultClear}
}

// LinkInfo is one link of a running lab and the fault proxies on it.
type LinkInfo struct {
	// Name is results.LinkAPIServer, LinkKeycloak or LinkClient.
	Name    string       `json:"name"`
	Proxies []FaultProxy `json:"proxies"`
}

// FaultProxy is one proxy of a link: its name in the fault proxy, where it
// listens and what it forwards to.
type FaultProxy struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
}

// ActiveFault is a fault in force on a link, as the fault proxy reports
// it, with when it was set and when it ends as the fault log says.
type ActiveFault struct {
	Fault Fault `json:"fault"`
	// Since is when it was set (nil when the log does not say).
	Since *time.Time `json:"since,omitempty"`
	// Until is when a --for fault clears itself (nil: until cleared).
	Until *time.Time `json:"until,omitempty"`
}

// EndFaults logs a clear, at at, for every link the fault log says has a
// fault in force then: the lab is stopping (or starting after a lab that
// died), and its fault proxy starts with no fault, so a run after it must
// not count the old fault as in force.
func EndFaults(dir string, at time.Time) error {
	events, err := ReadFaults(dir)
	if err != nil {
		return err
	}
	for _, ev := range FaultsDuring(events, at, at) {
		if ev.Action != results.FaultSet || !ev.At.Before(at) {
			continue
		}
		if err := AppendFault(dir, ClearEvent(ev.Link, at)); err != nil {
			return err
		}
	}
	return nil
}

// ParseBandwidth reads a bandwidth as --bandwidth takes it: a whole number
// of KB/s ("512", "512KB/s") or MB/s ("2MB/s"), decimal units (1 KB =
// 1,000 bytes) as Toxiproxy counts them.
func ParseBandwidth(s string) (int64, error) {
	v := strings.TrimSpace(s)
	mult := int64(1)
	switch u := strings.ToUpper(v); {
	case strings.HasSuffix(u, "MB/S"):
		v, mult = v[:len(v)-4], 1000
	case strings.HasSuffix(u, "KB/S"):
		v = v[:len(v)-4]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 || n > MaxFaultBandwidthKBps/mult {
		return 0, fmt.Errorf("bandwidth %q: want a whole number of KB/s or MB/s above 0, e.g. 512KB/s or 2MB/s", s)
	}
	return n * mult, nil
}
