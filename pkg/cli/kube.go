package cli

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/authbench/authbench/internal/kubeapi"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

func init() {
	register(newKubeCmd)
	register(func(streams) *cobra.Command { return newKubeSupervisorCmd() })
}

func newKubeCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Deploy the lab's stacks to a Kubernetes cluster (Deployments, RBAC, Route or HTTPRoute)",
	}
	cmd.AddCommand(newKubeApplyCmd(s, false), newKubeApplyCmd(s, true), newKubeClusterCmd(s))
	return cmd
}

// kubeFlags are the flags of kube deploy and kube delete.
type kubeFlags struct {
	stack, namespace, kubeconfig, registry     string
	issuer, clientID, clientSecretFile, oidcCA string
	dryRun, crds, noWait                       bool
}

func newKubeApplyCmd(s streams, del bool) *cobra.Command {
	var f kubeFlags
	use, short := "deploy", "Apply a stack's objects server-side (idempotent) and wait for its Deployments"
	if del {
		use, short = "delete", "Delete a stack's objects, only those labelled as its own (its namespace stays)"
	}
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runKube(cmd, s, f, del) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.stack, "stack", "", "stack: "+strings.Join(stacks.Names(), ", ")+" (required)")
	fl.StringVarP(&f.namespace, "namespace", "n", manifests.DefaultNamespace, "namespace of the stack")
	addKubeconfigFlag(cmd, &f.kubeconfig)
	fl.StringVar(&f.registry, "image-registry", "", "registry the images were pushed to (see authbench image build)")
	fl.StringVar(&f.issuer, "oidc-issuer-url", "", "3x: the OIDC issuer oauth2-proxy verifies bearer JWTs against")
	fl.StringVar(&f.clientID, "oidc-client-id", "authbench", "3x: the OIDC client ID")
	fl.StringVar(&f.clientSecretFile, "oidc-client-secret-file", "", "3x: file holding the OIDC client secret")
	fl.StringVar(&f.oidcCA, "oidc-ca-file", "", "3x: CA of the issuer (default the system's)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "server-side dry run: validate and admit, store nothing")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once applied, without waiting for the Deployments to be available")
	fl.BoolVar(&f.crds, "install-crds", false, "also apply minimal Route and HTTPRoute CRDs (for a cluster that has neither, like the lab's)")
	if del {
		// Accepted, so that a deploy's command line also deletes, but unused.
		for _, n := range []string{"oidc-issuer-url", "oidc-client-id", "oidc-client-secret-file", "oidc-ca-file"} {
			_ = fl.MarkHidden(n)
		}
	}
	return cmd
}

func runKube(cmd *cobra.Command, s streams, f kubeFlags, del bool) error {
	if !slices.Contains(stacks.Names(), f.stack) {
		return fmt.Errorf("--stack %q: want one of %s", f.stack, strings.Join(stacks.Names(), ", "))
	}
	ns, err := plan.ParseNamespace(f.namespace)
	if err != nil {
		return fmt.Errorf("--namespace %q: %w", f.namespace, err)
	}
	ns = ns.Or(plan.MustNamespace(manifests.DefaultNamespace))
	c, err := kubeapi.FromKubeconfig(kubeapi.KubeconfigPath(f.kubeconfig))
	if err != nil {
		return err
	}
	o := deploy.StackOptions{Stack: f.stack, Namespace: ns, Registry: f.registry, InstallCRDs: f.crds, DryRun: f.dryRun, NoWait: f.noWait}
	ctx := cmd.Context()
	if del {
		// Names are all a delete needs: no OIDC settings, images or certificate.
		if err := deploy.DeleteStack(ctx, c, o); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "deleted stack %s from namespace %s\n", f.stack, ns)
		return nil
	}
	if o.OIDC, err = oidcFromFlags(f); err != nil {
		return err
	}
	objs, err := deploy.Stack(ctx, c, o)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		fmt.Fprintf(s.out, "%s/%s applied%s\n", strings.ToLower(manifests.Kind(obj)), manifests.Name(obj), map[bool]string{true: " (dry run)"}[f.dryRun])
	}
	return nil
}

// oidcFromFlags reads the 3x stack's identity provider settings; the
// cookie secret is new at each deploy (it only signs oauth2-proxy cookies).
func oidcFromFlags(f kubeFlags) (manifests.OIDC, error) {
	o := manifests.OIDC{IssuerURL: f.issuer, ClientID: f.clientID}
	if f.stack != stacks.Stack3x {
		return o, nil
	}
	if f.issuer == "" {
		return o, errors.New("--stack 3x needs --oidc-issuer-url (the identity provider, e.g. the lab's Keycloak realm)")
	}
	if f.clientSecretFile != "" {
		b, err := boundedio.ReadFile(f.clientSecretFile, boundedio.Secret)
		if err != nil {
			return o, fmt.Errorf("reading --oidc-client-secret-file: %w", err)
		}
		o.ClientSecret = strings.TrimSpace(string(b))
	}
	if f.oidcCA != "" {
		b, err := boundedio.ReadFile(f.oidcCA, boundedio.PEM)
		if err != nil {
			return o, fmt.Errorf("reading --oidc-ca-file: %w", err)
		}
		o.CA = b
	}
	cookie := make([]byte, 24)
	rand.Read(cookie)
	o.CookieSecret = base64.RawURLEncoding.EncodeToString(cookie)[:32]
	return o, nil
}

// newKubeSupervisorCmd is the hidden command cluster.Up runs as PID 1 of
// the cluster's namespace.
func newKubeSupervisorCmd() *cobra.Command {
	return &cobra.Command{
		Use: cluster.SupervisorArg + " DIR", Hidden: true, Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if code := cluster.Supervise(args[0]); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}
