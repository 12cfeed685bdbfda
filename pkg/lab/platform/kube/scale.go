package kube

import (
	"context"
	"errors"
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// ErrScaleUnsupported reports `lab scale` on the kube platform, which does
// not run replicas yet: on hostNetwork a Deployment's replicas would all
// bind the one 127.0.0.1 port, so each replica needs a Deployment of its
// own (its port, service account and lab overlay from the catalog's
// replica entry) and the gateway's or route's config re-rendered with the
// new endpoints.
var ErrScaleUnsupported = errors.New("lab scale runs on the processes platform only, not yet on kube")

// SetReplicas refuses: see ErrScaleUnsupported.
func (Platform) SetReplicas(_ context.Context, dir string, scales []stacks.Scale) error {
	return fmt.Errorf("scaling the lab in %s (%v): %w; start it with `lab up --platform %s`", dir, scales, ErrScaleUnsupported, lab.PlatformProcesses)
}
