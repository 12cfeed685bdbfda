package kube

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
)

// openLive opens the ready kube lab in dir for a live change (a limit, a
// scale): it takes the state lock, so two changes never interleave their
// state writes, and gives the state and an API client. done releases the
// lock and ctx's deadline (limitTimeout), which bounds the whole change.
func openLive(ctx context.Context, dir, doing string) (_ context.Context, s *lab.State, c *kubeapi.Client, done func(), err error) {
	unlock, err := lock.State(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	if s, err = (Platform{}).Ready(ctx, dir); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", doing, err)
	}
	kcfg, err := Kubeconfig(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if c, err = kubeapi.FromKubeconfig(kcfg); err != nil {
		return nil, nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, limitTimeout)
	return ctx, s, c, func() { cancel(); unlock() }, nil
}
