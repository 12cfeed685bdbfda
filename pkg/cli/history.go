package cli

import (
	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newHistoryCmd) }

type historyOptions struct {
	out     string
	query   store.HistoryQuery
	reindex bool
}

func newHistoryCmd(s streams) *cobra.Command {
	o := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List runs and the trend of P50, P95 and throughput per target",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.reindex {
				if _, err := store.Reindex(o.out); err != nil {
					return err
				}
			}
			rows, err := store.History(o.out, o.query)
			if err != nil {
				return err
			}
			return report.HistoryText(s.out, rows)
		},
	}
	f := cmd.Flags()
	addOutDirFlag(cmd, &o.out)
	f.StringVar(&o.query.Target, "target", "", "only this target")
	f.StringVar(&o.query.Run, "name", "", "only runs with this name")
	f.IntVar(&o.query.Limit, "last", 0, "only the most recent N rows")
	f.IntVar(&o.query.Limit, "limit", 0, "only the most recent N rows")
	deprecate(f, "limit", "use --last")
	f.BoolVar(&o.reindex, "reindex", false, "rebuild the index from the run directories first")
	return cmd
}
