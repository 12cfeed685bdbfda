package runner

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/publish"
)

// publish sends the written run directory to the server the plan's
// publish block or $AUTHBENCH_OPENSEARCH_URL names. A failure is a
// warning: the run is on disk and `authbench publish` can send it later.
// An interrupted run is not sent: it would sit in the team's history as
// if it were whole.
func (s *Session) publish() {
	cfg := publish.FromPlan(s.Run.Plan.Publish).WithEnv()
	if !cfg.Enabled() {
		return
	}
	if s.Run.Partial {
		fmt.Fprintf(s.c.Log, "not published: the run was interrupted (authbench publish %s sends it)\n", s.Dir)
		return
	}
	// Not the run's context: the load is over, and a run stopped at its
	// deadline is still published. Config.Timeout bounds each request.
	if err := publish.Run(context.Background(), cfg, s.Dir, s.c.Log); err != nil {
		fmt.Fprintf(s.c.Log, "warning: %v (the run is saved; authbench publish %s sends it later)\n", err, s.Dir)
	}
}
