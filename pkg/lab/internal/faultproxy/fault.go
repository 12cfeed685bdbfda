package faultproxy

import (
	"context"
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/lab"
)

// Toxiproxy's streams: upstream carries the client's bytes to the server,
// downstream the server's back.
const (
	streamUp   = "upstream"
	streamDown = "downstream"
)

// Toxics turns a fault into the toxics that make it: a delay is split
// between the two directions (half, rounded down, on the way in; the rest
// on the way out), so that a request and its answer pay Delay ± Jitter in
// all; a bandwidth limit applies to each direction. Down is no toxic: the
// proxy is disabled (see Apply).
func Toxics(f lab.Fault) []Toxic {
	var out []Toxic
	if f.Delay > 0 {
		d, j := f.Delay.Milliseconds(), f.Jitter.Milliseconds()
		out = append(out,
			Toxic{Name: "authbench-delay-up", Type: "latency", Stream: streamUp, Toxicity: 1,
				Attributes: map[string]int{"latency": int(d / 2), "jitter": int(j / 2)}},
			Toxic{Name: "authbench-delay-down", Type: "latency", Stream: streamDown, Toxicity: 1,
				Attributes: map[string]int{"latency": int(d - d/2), "jitter": int(j - j/2)}})
	}
	if f.BandwidthKBps > 0 {
		for _, s := range []string{streamUp, streamDown} {
			out = append(out, Toxic{Name: "authbench-bandwidth-" + s, Type: "bandwidth", Stream: s, Toxicity: 1,
				Attributes: map[string]int{"rate": int(f.BandwidthKBps)}})
		}
	}
	return out
}

// Apply replaces the fault of the named proxies with f: it clears them,
// then adds f's toxics or, for Down, disables them.
func Apply(ctx context.Context, c *Client, proxies []string, f lab.Fault) error {
	if err := Clear(ctx, c, proxies); err != nil {
		return err
	}
	for _, p := range proxies {
		if f.Down {
			if err := c.SetEnabled(ctx, p, false); err != nil {
				return err
			}
			continue
		}
		for _, t := range Toxics(f) {
			if err := c.AddToxic(ctx, p, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Clear removes every toxic of the named proxies and enables them again.
func Clear(ctx context.Context, c *Client, proxies []string) error {
	all, err := c.Proxies(ctx)
	if err != nil {
		return err
	}
	for _, name := range proxies {
		p, ok := all[name]
		if !ok {
			return fmt.Errorf("toxiproxy has no proxy %q", name)
		}
		for _, t := range p.Toxics {
			if err := c.RemoveToxic(ctx, name, t.Name); err != nil {
				return err
			}
		}
		if !p.Enabled {
			if err := c.SetEnabled(ctx, name, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// Faults reads the fault in force on each link back from its proxies: the
// first of a link's proxies that has one speaks for the link (Apply sets
// the same fault on all). Links without a fault are left out.
func Faults(ctx context.Context, c *Client, links []lab.LinkInfo) ([]lab.Fault, error) {
	all, err := c.Proxies(ctx)
	if err != nil {
		return nil, err
	}
	var out []lab.Fault
	for _, l := range links {
		for _, fp := range l.Proxies {
			p, ok := all[fp.Name]
			if !ok {
				continue
			}
			if f, has := fromProxy(l.Name, p); has {
				out = append(out, f)
				break
			}
		}
	}
	return out, nil
}

// fromProxy is the fault a proxy's state makes, whoever set it: its
// latency toxics add up, its slowest bandwidth toxic is the limit.
func fromProxy(link string, p Proxy) (lab.Fault, bool) {
	f := lab.Fault{Link: link, Down: !p.Enabled}
	for _, t := range p.Toxics {
		switch t.Type {
		case "latency":
			f.Delay += time.Duration(t.Attributes["latency"]) * time.Millisecond
			f.Jitter += time.Duration(t.Attributes["jitter"]) * time.Millisecond
		case "bandwidth":
			if r := int64(t.Attributes["rate"]); f.BandwidthKBps == 0 || r < f.BandwidthKBps {
				f.BandwidthKBps = r
			}
		}
	}
	return f, f.Down || f.Delay > 0 || f.BandwidthKBps > 0 || len(p.Toxics) > 0
}
