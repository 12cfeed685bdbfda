package publish

import (
	"context"
	"fmt"
	"io"
)

// Summary is what publishing did.
type Summary struct {
	URL   string `json:"url"`
	Index string `json:"index"`
	Runs  int    `json:"runs"`
	// TemplateCreated is true when the index template did not exist.
	TemplateCreated bool `json:"template_created"`
	Created         int  `json:"created"`
	Existing        int  `json:"existing"`
}

// bulkDocs is how many documents one bulk request carries at most
// (each holds a histogram of a few kilobytes).
const bulkDocs = 500

// Publish sends the runs in runDirs: the index template first (if
// missing), then each run's documents in one bulk request. Runs already
// published are counted as Existing, not duplicated.
func Publish(ctx context.Context, cfg Config, runDirs ...string) (Summary, error) {
	c, err := NewClient(ctx, cfg)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{URL: c.URL(), Index: c.Index()}
	if s.TemplateCreated, err = c.EnsureTemplate(ctx); err != nil {
		return s, err
	}
	// Documents go in bulk requests of up to bulkDocs: one refresh wait per
	// request, not per run.
	var batch []Document
	flush := func() error {
		res, err := c.Bulk(ctx, batch)
		s.Created += res.Created
		s.Existing += res.Existing
		batch = batch[:0]
		return err
	}
	for _, dir := range runDirs {
		docs, err := Documents(dir)
		if err != nil {
			return s, err
		}
		batch = append(batch, docs...)
		s.Runs++
		if len(batch) >= bulkDocs {
			if err := flush(); err != nil {
				return s, err
			}
		}
	}
	if err := flush(); err != nil {
		return s, err
	}
	return s, nil
}

// Run is the hook at the end of `authbench run`: it publishes runDir when
// cfg (completed from the AUTHBENCH_OPENSEARCH_* variables) names a
// server, and says so on log. It does nothing otherwise. A failure is
// returned for the caller to report; the run itself stays on disk.
func Run(ctx context.Context, cfg Config, runDir string, log io.Writer) error {
	cfg = cfg.WithEnv()
	if !cfg.Enabled() {
		return nil
	}
	s, err := Publish(ctx, cfg, runDir)
	if err != nil {
		return fmt.Errorf("publishing the run: %w", err)
	}
	fmt.Fprintln(log, s.String())
	return nil
}

// String is the one-line account printed after publishing.
func (s Summary) String() string {
	msg := fmt.Sprintf("published %d run(s) to %s index %s: %d document(s) new, %d already there", s.Runs, s.URL, s.Index, s.Created, s.Existing)
	if s.TemplateCreated {
		msg += " (index template created)"
	}
	return msg
}
