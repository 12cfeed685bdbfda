// Package sinks holds what a finished run becomes besides its run.json:
// the derived files (summary.md, an HTML report), the runs directory's
// history index and OpenSearch publishing. The runner measures and
// records run.json, then hands the run to the sinks it was given
// (runner.Sink); the CLI chooses them. A new destination for results is
// a new Sink here, wired in pkg/cli.
package sinks

import (
	"io"

	"github.com/authbench/authbench/pkg/runner"
)

// Standard are the sinks of every measured or imported run, in order:
// summary.md, the history index of runsDir, then publishing when the
// plan or the environment names a server. Warnings go to log.
func Standard(runsDir string, log io.Writer) []runner.Sink {
	return []runner.Sink{Summary(), Index(runsDir, log), Publish(log)}
}
