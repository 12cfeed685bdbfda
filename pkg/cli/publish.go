package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/publish"
)

func init() { register(newPublishCmd) }

// openSearchFlags are the --opensearch* flags shared by publish,
// regressions and history. The token flags are --opensearch-token-*, apart
// from the target's --token-*.
type openSearchFlags struct {
	url, index, user, passwordFile, cacert string
	tokenEnv, tokenFile, tokenCmd          string
	timeout                                time.Duration
}

func (o *openSearchFlags) add(f *pflag.FlagSet) {
	f.StringVar(&o.url, "opensearch", "", "OpenSearch or Elasticsearch URL (default $"+publish.EnvURL+")")
	f.StringVar(&o.index, "index", "", "index name (default $"+publish.EnvIndex+", else "+publish.DefaultIndex+")")
	f.StringVar(&o.user, "opensearch-user", "", "basic-auth user (default $"+publish.EnvUser+")")
	f.StringVar(&o.passwordFile, "opensearch-password-file", "", "basic-auth password file (default: $"+publish.EnvPassword+")")
	f.StringVar(&o.cacert, "opensearch-cacert", "", "PEM file of CAs to trust for the server (TLS is always verified)")
	f.StringVar(&o.tokenEnv, "opensearch-token-env", "", "bearer token for the server from this environment variable")
	f.StringVar(&o.tokenFile, "opensearch-token-file", "", "bearer token for the server from this file")
	f.StringVar(&o.tokenCmd, "opensearch-token-command", "", "bearer token for the server from a command's output")
	f.DurationVar(&o.timeout, "opensearch-timeout", publish.DefaultTimeout, "timeout of each request to the server")
}

// config turns the flags into a publish.Config completed from the
// environment.
func (o *openSearchFlags) config() (publish.Config, error) {
	c := publish.Config{URL: o.url, Index: o.index, User: o.user, PasswordFile: o.passwordFile, CACert: o.cacert, Timeout: o.timeout}
	var specs []*auth.Spec
	if o.tokenEnv != "" {
		specs = append(specs, &auth.Spec{Env: o.tokenEnv})
	}
	if o.tokenFile != "" {
		specs = append(specs, &auth.Spec{File: o.tokenFile})
	}
	if o.tokenCmd != "" {
		specs = append(specs, &auth.Spec{Command: o.tokenCmd})
	}
	if len(specs) > 1 {
		return c, fmt.Errorf("give one of --opensearch-token-env, --opensearch-token-file, --opensearch-token-command")
	}
	if len(specs) == 1 {
		c.Token = specs[0]
	}
	c = c.WithEnv()
	if !c.Enabled() {
		return c, fmt.Errorf("no server: give --opensearch URL or set %s", publish.EnvURL)
	}
	return c, c.Validate()
}

type publishOptions struct {
	os     openSearchFlags
	format formatValue
}

func newPublishCmd(s streams) *cobra.Command {
	o := &publishOptions{}
	cmd := &cobra.Command{
		Use:   "publish RUN...",
		Short: "Send runs to OpenSearch or Elasticsearch, one document per target x iteration",
		Long: `publish sends run directories to an OpenSearch (2.x) or Elasticsearch (8.x)
index: one document per target x iteration with the run's metadata, figures
and HdrHistogram, so that a team's runs can be searched, charted and merged
exactly. Document ids come from the run id, target and iteration: publishing
a run again changes nothing. The index template is created if missing.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := o.os.config()
			if err != nil {
				return err
			}
			sum, err := publish.Publish(cmd.Context(), cfg, args...)
			if err != nil {
				return err
			}
			if o.format.value == formatJSON {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			_, err = fmt.Fprintln(s.out, sum.String())
			return err
		},
	}
	o.os.add(cmd.Flags())
	addFormatFlag(cmd, &o.format, "json for scripts", formatText, formatJSON)
	return cmd
}
