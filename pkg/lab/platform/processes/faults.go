package processes

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/lab"
)

// SetFault replaces the fault on every proxy of f.Link.
func (Platform) SetFault(context.Context, string, lab.Fault) error {
	return fmt.Errorf("processes platform: %w", lab.ErrNoFaultProxy)
}

// ClearFault removes every fault from link's proxies.
func (Platform) ClearFault(context.Context, string, string) error {
	return fmt.Errorf("processes platform: %w", lab.ErrNoFaultProxy)
}

// Faults lists the faults in force.
func (Platform) Faults(context.Context, string) ([]lab.Fault, error) { return nil, nil }
