package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newHistoryCmd) }

type historyOptions struct {
	out, source string
	format      formatValue
	query       store.HistoryQuery
	reindex     bool
	os          openSearchFlags
}

func newHistoryCmd(s streams) *cobra.Command {
	o := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List runs and the trend of P50, P95 and throughput per target",
		Long: `history lists the runs of the local index (--source local, the default) or of
an OpenSearch/Elasticsearch index (--source opensearch, the --opensearch* flags
as publish takes them). -o html draws each target's trend with the change
points regressions finds marked; -o json prints the rows for scripts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.reindex {
				if o.source != "local" {
					return fmt.Errorf("--reindex rebuilds the local index: it takes --source local")
				}
				if _, err := store.Reindex(o.out); err != nil {
					return err
				}
			}
			pts, err := loadHistoryPoints(cmd, o.source, o.out, &o.os, o.query)
			if err != nil {
				return err
			}
			switch o.format.value {
			case formatHTML:
				return writeHistoryHTML(s.out, pts)
			case formatJSON:
				return report.HistoryJSON(s.out, pts)
			}
			return report.HistoryPointsText(s.out, pts)
		},
	}
	f := cmd.Flags()
	addOutDirFlag(cmd, &o.out)
	addFormatFlag(cmd, &o.format, "html is a self-contained page with the change points marked; json for scripts", formatText, formatHTML, formatJSON)
	f.StringVar(&o.source, "source", "local", "where the history is: local (the runs directory's index) or opensearch")
	f.StringVar(&o.query.Target, "target", "", "only this target")
	f.StringVar(&o.query.Run, "name", "", "only runs with this name")
	f.IntVar(&o.query.Limit, "last", 0, "only the most recent N rows")
	f.IntVar(&o.query.Limit, "limit", 0, "only the most recent N rows")
	deprecate(f, "limit", "use --last")
	f.BoolVar(&o.reindex, "reindex", false, "rebuild the local index from the run directories first")
	o.os.add(f)
	return cmd
}
