package cli

import (
	"github.com/spf13/cobra"
)

func init() {
	register(func(streams) *cobra.Command { return newLabCmd() })
}
