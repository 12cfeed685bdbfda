package kube

import (
	"context"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
)

// SetFault replaces the fault on every proxy of f.Link through the fault
// proxy's API.
func (Platform) SetFault(ctx context.Context, dir string, f lab.Fault) error {
	api, names, err := linkProxies(ctx, dir, f.Link)
	if err != nil {
		return err
	}
	return faultproxy.Apply(ctx, api, names, f)
}

// ClearFault removes every fault from link's proxies.
func (Platform) ClearFault(ctx context.Context, dir, link string) error {
	api, names, err := linkProxies(ctx, dir, link)
	if err != nil {
		return err
	}
	return faultproxy.Clear(ctx, api, names)
}

// Faults reads the faults in force back from the fault proxy.
func (Platform) Faults(ctx context.Context, dir string) ([]lab.Fault, error) {
	s, err := Platform{}.Ready(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(s.Links) == 0 {
		return nil, nil
	}
	return faultproxy.Faults(ctx, faultproxy.Lab(s.Ports), s.Links)
}

// linkProxies finds the running lab's fault proxy API and the proxies of
// link; lab.ErrNoFaultProxy, with what to do, when the lab has none.
func linkProxies(ctx context.Context, dir, link string) (*faultproxy.Client, []string, error) {
	s, err := Platform{}.Ready(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	return faultproxy.LinkProxies(s, link, "kube lab")
}
