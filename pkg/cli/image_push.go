package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/image"
)

// registryFlags are the flags reaching a registry: its credentials and
// whether it is plain HTTP. Secrets never come from a flag's value.
type registryFlags struct {
	insecure bool
	creds    image.CredentialSource
}

func (r *registryFlags) add(cmd *cobra.Command, what string) {
	f := cmd.Flags()
	f.BoolVar(&r.insecure, "insecure-registry", false, "plain HTTP to the registry"+what+" (a registry on loopback only; TLS is verified otherwise)")
	f.StringVar(&r.creds.User, "registry-user", "", "registry user"+what+"; the password from $"+image.PasswordEnv+" or --registry-password-file (default: your docker or podman login)")
	f.StringVar(&r.creds.PasswordFile, "registry-password-file", "", "file whose first line is --registry-user's password")
	f.StringVar(&r.creds.TokenCommand, "registry-token-command", "", `command printing a registry token, e.g. "oc whoami -t" for OpenShift's registry`)
}

// changed says whether any registry flag was given.
func (r *registryFlags) changed(cmd *cobra.Command) (string, bool) {
	for _, n := range []string{"insecure-registry", "registry-user", "registry-password-file", "registry-token-command"} {
		if cmd.Flags().Changed(n) {
			return n, true
		}
	}
	return "", false
}

// pushImage builds image name (cached) and pushes it to dest unless the
// registry has it, logging one line; it returns what pods pin.
func pushImage(ctx context.Context, name string, dest func(tag string) (image.Destination, error), r registryFlags, log io.Writer) (image.Pushed, error) {
	// The reference and credentials are checked before the image is built.
	if _, err := dest("latest"); err != nil {
		return image.Pushed{}, err
	}
	creds, err := image.LoadCredentials(ctx, r.creds, os.Getenv)
	if err != nil {
		return image.Pushed{}, err
	}
	img, _, err := image.Build(ctx, name, image.Options{})
	if err != nil {
		return image.Pushed{}, err
	}
	tag, err := image.Tag(img)
	if err != nil {
		return image.Pushed{}, err
	}
	d, err := dest(tag)
	if err != nil {
		return image.Pushed{}, err
	}
	p, err := image.Push(ctx, img, d, image.PushOptions{Credentials: creds})
	if err != nil {
		return p, err
	}
	how := "pushed"
	if p.Existed {
		how = "already in the registry"
	}
	fmt.Fprintf(log, "image: %s %s (%s)\n", p.Tag, p.Digest, how)
	return p, nil
}

func newImagePushCmd(s streams) *cobra.Command {
	var r registryFlags
	var name string
	cmd := &cobra.Command{
		Use:   "push REF",
		Short: "Push an image (default this binary's) to a registry; prints its digest reference",
		Long: `Push an image built by authbench image build (default: authbench itself, this
very binary) to REF, HOST[:PORT]/PATH[:TAG] (the tag defaults to the image's
own). Nothing is sent when the registry already has that manifest under the
tag. The last line is HOST/PATH@sha256:..., the reference that pins exactly
this image (run --pods N --image REF@DIGEST, or run --image-registry does it).

Credentials: your docker or podman login (~/.docker/config.json,
$REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json), or --registry-user
with the password in $` + image.PasswordEnv + ` or --registry-password-file, or
--registry-token-command. They are never printed or written.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest := func(tag string) (image.Destination, error) {
				return image.ParseDestination(args[0], tag, r.insecure)
			}
			p, err := pushImage(cmd.Context(), name, dest, r, s.err)
			if err != nil {
				return err
			}
			fmt.Fprintln(s.out, p.Ref)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "image", "authbench", "the image to push (one of authbench image build's)")
	r.add(cmd, "")
	return cmd
}
