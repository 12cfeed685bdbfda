package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/stacks"
)

// newLabCmd is `authbench lab`: the local lab of the 2x and 3x auth stacks.
func newLabCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Run the 2x and 3x auth stacks locally from real components",
		Long: `The lab runs both architectures on 127.0.0.1 from real components:
  2x  Route + oauth-proxy: HAProxy (edge TLS) -> authbench's oauth-proxy stand-in -> http-echo
  3x  Gateway + kube-auth-proxy + kube-rbac-proxy: Envoy (edge TLS, HTTP ext_authz)
      -> oauth2-proxy playing kube-auth-proxy -> kube-rbac-proxy -> http-echo
sharing etcd, a kube-apiserver (TokenReview, SubjectAccessReview) and Keycloak.`,
	}
	cmd.AddCommand(newLabUpCmd(), newLabStatusCmd(), newLabDownCmd(), newLabScenarioCmd(), newLabLimitCmd(),
		newLabServeCmd(), newLabStandinCmd(), newLabInstallCmd(), newLabKubeconfigCmd(), newLabFaultCmd())
	return cmd
}

// addLabSubDirFlag is a lab subcommand's --lab-dir (formerly --dir).
func addLabSubDirFlag(cmd *cobra.Command, dir *string) {
	addLabDirFlag(cmd, dir, lab.DefaultDir(), "lab directory (state, logs, certificates, secrets)", "dir")
}

type labUpOptions struct {
	dir        string
	platform   platformValue
	stacks     stacksValue
	limits     limitsValue
	ports      portsValue
	lifespan   time.Duration
	timeout    time.Duration
	foreground bool
	tokenPool  int
	authz      time.Duration
	failMode   authzFailureModeValue
	apiQPS     float64
	authzCache time.Duration
	clientLink bool
	clientRTT  time.Duration
}

func newLabUpCmd() *cobra.Command {
	o := &labUpOptions{platform: platformValue{lab.PlatformProcesses}, stacks: stacksValue{stacks: stacks.Names()},
		failMode: authzFailureModeValue{stacks.DefaultAuthzFailureMode}}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start the lab and return once every component is ready",
		Example: `  authbench lab up
  authbench lab up --stack 3x --limit oauth2-proxy=50m
  authbench lab up --stack 3x-oauth --token-pool 5000
  authbench lab up --stack 3x --authz-timeout 200ms --limit oauth2-proxy=50m
  authbench lab up --stack 3x-oauth --authz-api-qps 200
  authbench lab up --limit oauth2-proxy=500m,256Mi --limit http-echo=200m
  authbench lab up --stack 2x --client-rtt 45ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	addLabSubDirFlag(cmd, &o.dir)
	f.Var(&o.platform, "platform", "where the components run: processes on this host, or kube (a single-node Kubernetes)")
	f.Var(&o.stacks, "stack", "stacks to run: "+strings.Join(stacks.Names(), ", ")+" or all")
	f.IntVar(&o.tokenPool, "token-pool", 0, "issue static tokens for N users alice-1..alice-N (bound like alice) into DIR/tokens/pool, sent round-robin by the 2x and 3x-oauth scenario targets")
	f.DurationVar(&o.authz, "authz-timeout", stacks.DefaultAuthzTimeout,
		"the 3x gateways' ext_authz timeout (the OpenShift AI gateway's authProxyTimeout; a slower authz call is answered 403, or let through with --authz-failure-mode allow)")
	f.Var(&o.failMode, "authz-failure-mode", "what the 3x gateways do when the ext_authz call fails or times out: deny (Envoy's 403, the OpenShift AI gateway's) or allow")
	f.Float64Var(&o.apiQPS, "authz-api-qps", 0, "what-if: the kube-auth-proxy stand-in's API client QPS (burst twice it; default: client-go's 5 QPS, burst 10, as the real one)")
	f.DurationVar(&o.authzCache, "authz-cache", 0, "what-if: cache the kube-auth-proxy stand-in's TokenReviews this long (default: no cache, as the real one)")
	f.BoolVar(&o.clientLink, "client-link", false, "put the fault proxy between the client and each stack's entry point (the scenario's targets go through it), so that `lab fault client` can act on it")
	f.DurationVar(&o.clientRTT, "client-rtt", 0, "place the client this round trip away from every entry point: a delay fault on the client link from the start (implies --client-link; whole milliseconds)")
	f.Var(&o.limits, "limit", "COMPONENT=CPU[,MEM] cgroup limit, e.g. oauth2-proxy=50m or oauth2-proxy=500m,256Mi (repeatable)")
	f.Var(&o.ports, "port", "NAME=PORT to pin a port instead of a free one, e.g. haproxy=8443 (repeatable)")
	f.DurationVar(&o.lifespan, "token-lifespan", lab.DefaultAccessTokenLifespan, "Keycloak access token lifespan")
	f.DurationVar(&o.timeout, "ready-timeout", lab.DefaultReadyTimeout, "how long the lab may take to become ready")
	f.DurationVar(&o.timeout, "timeout", lab.DefaultReadyTimeout, "how long the lab may take to become ready")
	deprecate(f, "timeout", "use --ready-timeout")
	f.BoolVar(&o.foreground, "foreground", false, "run the lab in this process until Ctrl-C instead of in the background")
	return cmd
}

func (o *labUpOptions) run(cmd *cobra.Command) error {
	out := cmd.OutOrStdout()
	t0 := time.Now()
	st, err := openLab(o.dir).Up(cmd.Context(), lab.UpOptions{
		Out: out, Foreground: o.foreground,
		Config: lab.Config{Platform: o.platform.name, Stacks: o.stacks.stacks, Limits: o.limits.limits,
			Ports: o.ports.ports, AccessTokenLifespan: o.lifespan, ReadyTimeout: o.timeout, TokenPool: o.tokenPool,
			AuthzTimeout: o.authz, AuthzFailureMode: o.failMode.mode, AuthzAPIQPS: o.apiQPS, AuthzCache: o.authzCache,
			ClientLink: o.clientLink, ClientRTT: o.clientRTT},
	})
	if err != nil || st == nil {
		return err
	}
	fmt.Fprintf(out, "\nlab up in %.1fs\n\n", time.Since(t0).Seconds())
	return lab.WriteStatus(out, st)
}

func newLabStatusCmd() *cobra.Command {
	var dir string
	var asJSON bool
	format := &formatValue{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the lab runs, where, with which version and which component plays which role",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openLab(dir).Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON || format.value == formatJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			return lab.WriteStatus(cmd.OutOrStdout(), st)
		},
	}
	addLabSubDirFlag(cmd, &dir)
	addFormatFlag(cmd, format, "json is state.json with live statuses", formatText, formatJSON)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print state.json with live statuses")
	deprecate(cmd.Flags(), "json", "use -o json")
	return cmd
}

func newLabDownCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop every lab component, children of children included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openLab(dir).Down(cmd.Context(), cmd.OutOrStdout())
		},
	}
	addLabSubDirFlag(cmd, &dir)
	return cmd
}

func newLabScenarioCmd() *cobra.Command {
	var dir, output string
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Print a scenario YAML for the running lab: one target per stack, its layers, token source and lab",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := openLab(dir).Scenario(cmd.Context())
			if err != nil {
				return err
			}
			if output != "-" {
				if err := atomicfile.Write(output, b, 0o644); err != nil {
					return fmt.Errorf("writing scenario: %w", err)
				}
				return nil
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	addLabSubDirFlag(cmd, &dir)
	addOutputFileFlag(cmd, &output, "-", "write the scenario to this file (- for stdout)")
	return cmd
}

// newLabServeCmd is the background supervisor `lab up` starts; hidden.
func newLabServeCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Run the lab supervisor in the foreground (started by `lab up`)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return processes.Serve(cmd.Context(), dir, cmd.OutOrStdout())
		},
	}
	addLabSubDirFlag(cmd, &dir)
	return cmd
}
