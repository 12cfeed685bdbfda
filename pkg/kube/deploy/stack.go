package deploy

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

// StackOptions say which stack to deploy and how.
type StackOptions struct {
	Stack     string         // stacks.Stack2x, Stack3x or Stack3xOAuth
	Namespace plan.Namespace // default manifests.DefaultNamespace
	Registry  string         // image registry prefix; default image.DefaultRegistry
	Lab       *manifests.Lab
	OIDC      manifests.OIDC // the 3x stack's identity provider (3x only)
	// Authz is the 3x gateway's ext_authz settings; default the OpenShift
	// AI gateway's.
	Authz manifests.Authz
	// InstallCRDs applies the minimal Route and HTTPRoute CRDs first (the
	// lab cluster); never on a cluster that has the real ones.
	InstallCRDs bool
	DryRun      bool
	NoWait      bool // return once applied, without waiting for the Deployments
	// Serving, when set, is the certificate every TLS listener serves
	// (the lab's, so that one CA covers the stacks and Keycloak). Default:
	// the one already in the namespace's serving Secret, else a new one.
	Serving *manifests.TLS
	// Limits set resources.limits of components at apply time (component
	// name as in manifests.Workload -> limits such as {"cpu": "50m"}).
	// Default none.
	Limits map[string]map[string]string
}

// namespace is the stack's namespace, the default when unset.
func (o StackOptions) namespace() plan.Namespace {
	return o.Namespace.Or(plan.MustNamespace(manifests.DefaultNamespace))
}

// Objects resolves images and the serving certificate and builds the
// stack's objects, CRDs first when asked for.
func Objects(ctx context.Context, c *Client, o StackOptions) ([]manifests.Object, error) {
	ns := o.namespace()
	mo := manifests.Options{Stack: o.Stack, Namespace: ns.String(), Lab: o.Lab, OIDC: o.OIDC, Authz: o.Authz, Images: map[string]string{}}
	for _, n := range []string{stacks.ProgramHTTPEcho, stacks.ProgramKubeRBACProxy, stacks.ProgramOAuth2Proxy, stacks.ProgramEnvoy, stacks.ProgramHAProxy} {
		ref, err := image.Ref(ctx, n, image.Options{Registry: o.Registry})
		if err != nil {
			return nil, err
		}
		mo.Images[n] = ref
	}
	var err error
	if o.Serving != nil {
		mo.Serving = *o.Serving
	} else if mo.Serving, err = servingTLS(ctx, c, ns); err != nil {
		return nil, fmt.Errorf("making the serving certificate: %w", err)
	}
	objs, err := manifests.Build(mo)
	if err != nil {
		return nil, err
	}
	for comp, l := range o.Limits {
		if err := setLimits(objs, comp, l); err != nil {
			return nil, err
		}
	}
	if o.InstallCRDs {
		objs = append(manifests.CRDs(), objs...)
	}
	return objs, nil
}

// Stack applies the stack's objects and, unless a dry run, waits for its
// Deployments.
func Stack(ctx context.Context, c *Client, o StackOptions) ([]manifests.Object, error) {
	objs, err := Objects(ctx, c, o)
	if err != nil {
		return nil, err
	}
	if o.InstallCRDs && !o.DryRun {
		if err := Apply(ctx, c, manifests.CRDs(), ApplyOptions{}); err != nil {
			return nil, err
		}
		if err := waitCRDs(ctx, c); err != nil {
			return nil, err
		}
		objs = objs[len(manifests.CRDs()):]
	}
	if err := Apply(ctx, c, objs, ApplyOptions{DryRun: o.DryRun}); err != nil {
		return nil, err
	}
	if o.DryRun || o.NoWait {
		return objs, nil
	}
	return objs, WaitAvailable(ctx, c, objs)
}

// DeleteStack deletes the stack's objects from o.Namespace (the CRDs too
// when o.InstallCRDs), keeping what the stacks share. It needs no OIDC
// settings, images or certificate: only the objects' names.
func DeleteStack(ctx context.Context, c *Client, o StackOptions) error {
	objs, err := manifests.ForDelete(o.Stack, o.namespace().String())
	if err != nil {
		return err
	}
	if o.InstallCRDs {
		objs = append(manifests.CRDs(), objs...)
	}
	return Delete(ctx, c, objs)
}
