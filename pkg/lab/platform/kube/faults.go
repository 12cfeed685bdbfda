package kube

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
	"github.com/authbench/authbench/pkg/results"
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
	return faultproxy.Faults(ctx, toxiproxyAPI(s.Ports), s.Links)
}

// linkProxies finds the running lab's fault proxy API and the proxies of
// link; lab.ErrNoFaultProxy, with what to do, when the lab has none.
func linkProxies(ctx context.Context, dir, link string) (*faultproxy.Client, []string, error) {
	s, err := Platform{}.Ready(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	l, ok := s.Link(link)
	if !ok {
		return nil, nil, noLinkError(s, link)
	}
	return toxiproxyAPI(s.Ports), proxyNames(l), nil
}

func noLinkError(s *lab.State, link string) error {
	switch {
	case link == results.LinkClient:
		return fmt.Errorf("%w: the kube lab was started without the client link; `lab up --client-link` (or --client-rtt D) puts one on every entry point", lab.ErrNoFaultProxy)
	case link == results.LinkKeycloak && len(s.Links) > 0:
		return fmt.Errorf("%w: this kube lab runs no Keycloak (stacks %v)", lab.ErrNoFaultProxy, s.Stacks)
	}
	return fmt.Errorf("%w: this kube lab runs no fault proxy on link %s (started by an older authbench? `lab down` and `lab up` again)", lab.ErrNoFaultProxy, link)
}
