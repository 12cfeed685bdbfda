// Package scenario reads a YAML scenario file into a plan.Plan.
//
// Every problem is reported with the file, line and field, like a
// compiler: "scenario.yaml:7: load.concurency: unknown field (did you mean
// "concurrency"?)". Load and Parse check the whole file and return every
// problem at once (up to 50) as an Errors, in line order, rather than
// stopping at the first; values that failed to decode are not checked again,
// so one mistake gives one message.
//
// The schema, with each field's default, is the set of types in schema.go.
// Relative paths in a file (body_file, token file, cacert, ...) are relative
// to the file's directory. A scenario file never holds a secret: tokens,
// passwords and client secrets are named by environment variable, file or
// command.
package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/plan"
)

// Load reads and checks the scenario file at path. Relative paths in it are
// resolved against its directory, made absolute. Problems are returned as
// Errors; a file that cannot be read gives an ordinary error.
func Load(path string) (*plan.Plan, error) { return LoadContext(context.Background(), path) }

// LoadContext is Load that gives up when ctx is done: a FIFO may wait for
// its writer forever. The file is read up to boundedio.Scenario.
func LoadContext(ctx context.Context, path string) (*plan.Plan, error) {
	data, err := boundedio.ReadFileContext(ctx, path, boundedio.Scenario)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	return parse(path, dir, data)
}

// Parse checks scenario data. name labels error messages and the plan's
// Source, its base name (without extension) is the default plan name, and
// relative paths in the data are resolved against its directory.
func Parse(name string, data []byte) (*plan.Plan, error) {
	return parse(name, filepath.Dir(name), data)
}

func parse(name, dir string, data []byte) (*plan.Plan, error) {
	d := newDecoder(name)
	root, ok := d.document(data)
	var p *plan.Plan
	if ok {
		var f fileSpec
		if root != nil {
			d.decode(root, reflectValue(&f), "", root.Line)
		}
		b := &builder{decoder: d, name: name, dir: dir, lines: map[string]int{}}
		p = b.plan(&f)
	}
	if len(d.errs) > 0 {
		errs := d.errs.sorted()
		if d.full {
			errs = append(errs, &Error{File: name, Msg: fmt.Sprintf("too many problems; stopped after %d", maxErrors)})
		}
		return nil, errs
	}
	if err := p.Validate(); err != nil {
		// The checks above should have caught it with a line.
		return nil, Errors{{File: name, Msg: err.Error()}}
	}
	return p, nil
}
