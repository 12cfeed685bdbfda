package sinks

import (
	"context"
	"fmt"
	"io"

	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/runner"
)

// publisher sends runs to OpenSearch.
type publisher struct{ log io.Writer }

// Publish returns the sink that sends the run directory to the server
// the plan's publish block or $AUTHBENCH_OPENSEARCH_URL names. A failure
// is a warning on log: the run is on disk and `authbench publish` can
// send it later. An interrupted run is not sent: it would sit in the
// team's history as if it were whole.
func Publish(log io.Writer) runner.Sink { return publisher{log: logOr(log)} }

// Write publishes the run, or says why it did not.
func (p publisher) Write(ctx context.Context, o *runner.Outcome) error {
	cfg := publish.FromPlan(o.Run.Plan.Publish).WithEnv()
	if !cfg.Enabled() {
		return nil
	}
	if o.Run.Partial {
		fmt.Fprintf(p.log, "not published: the run was interrupted (authbench publish %s sends it)\n", o.Dir)
		return nil
	}
	// The run's context may be over (a run stopped at its deadline is
	// still published); Config.Timeout bounds each request.
	if err := publish.Run(context.WithoutCancel(ctx), cfg, o.Dir, p.log); err != nil {
		fmt.Fprintf(p.log, "warning: %v (the run is saved; authbench publish %s sends it later)\n", err, o.Dir)
	}
	return nil
}
