package kube

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
)

// SetFault is not supported on the kube platform yet: it runs no fault
// proxy.
func (Platform) SetFault(context.Context, string, lab.Fault) error { return errNoFaults() }

// ClearFault is not supported on the kube platform yet.
func (Platform) ClearFault(context.Context, string, string) error { return errNoFaults() }

// Faults lists none: the kube platform runs no fault proxy yet.
func (Platform) Faults(context.Context, string) ([]lab.Fault, error) { return nil, nil }

func errNoFaults() error {
	return fmt.Errorf("faults are not yet supported on the kube platform: %w", lab.ErrNoFaultProxy)
}
