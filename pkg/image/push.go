package image

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/authbench/authbench/pkg/redact"
)

// PushOptions say how to reach the registry.
type PushOptions struct {
	// Credentials, when set, are used instead of the user's docker or
	// podman login (authn.DefaultKeychain: $DOCKER_CONFIG or
	// ~/.docker/config.json, $REGISTRY_AUTH_FILE, then
	// $XDG_RUNTIME_DIR/containers/auth.json).
	Credentials *Credentials
	// Transport is the HTTP transport under the plain-HTTP guard.
	// Default http.DefaultTransport (TLS verified with the system roots).
	Transport http.RoundTripper
	// TempDir is where the tarball is unpacked. Default the system's.
	TempDir string
}

// Pushed is an image in a registry.
type Pushed struct {
	Tag     string // HOST/PATH:TAG
	Digest  string // sha256:... of the manifest
	Ref     string // HOST/PATH@DIGEST, what pods pin
	Existed bool   // the registry had it under that tag already: nothing sent
}

// Push copies img's OCI layout tarball to dest, unless dest's tag already
// names the same manifest. The manifest is pushed byte for byte, so its
// digest is the one containerd gives the imported tarball. Errors never
// carry the credentials.
func Push(ctx context.Context, img Image, dest Destination, o PushOptions) (Pushed, error) {
	var secrets []string
	if o.Credentials != nil {
		secrets = o.Credentials.secrets()
	}
	p, err := push(ctx, img, dest, o)
	var te *transport.Error
	if errors.As(err, &te) && (te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden) {
		err = fmt.Errorf("%w (the registry refused the credentials: docker or podman login to it, or give --registry-user)", err)
	}
	if err != nil {
		return p, redact.Error(fmt.Errorf("pushing %s to %s: %w", img.Name, dest, err), secrets...)
	}
	return p, nil
}

func push(ctx context.Context, img Image, dest Destination, o PushOptions) (Pushed, error) {
	dir, err := os.MkdirTemp(o.TempDir, "authbench-push-")
	if err != nil {
		return Pushed{}, fmt.Errorf("creating a directory to unpack the image: %w", err)
	}
	defer os.RemoveAll(dir)
	v1img, digest, err := openLayout(img.Path, dir)
	if err != nil {
		return Pushed{}, err
	}
	p := Pushed{Tag: dest.String(), Digest: digest.String(), Ref: dest.DigestRef(digest.String())}
	opts := remoteOptions(ctx, dest, o)
	if d, err := remote.Head(dest.tag, opts...); err == nil && d.Digest == digest {
		p.Existed = true
		return p, nil
	}
	if err := remote.Write(dest.tag, v1img, opts...); err != nil {
		return Pushed{}, err
	}
	return p, nil
}

// openLayout unpacks the tarball into dir and opens its one image.
func openLayout(tarball, dir string) (v1.Image, v1.Hash, error) {
	f, err := os.Open(tarball)
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("opening the image tarball: %w", err)
	}
	defer f.Close()
	if err := untar(f, dir); err != nil {
		return nil, v1.Hash{}, fmt.Errorf("unpacking %s: %w", filepath.Base(tarball), err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("reading the OCI layout: %w", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("reading index.json: %w", err)
	}
	if len(m.Manifests) != 1 {
		return nil, v1.Hash{}, fmt.Errorf("index.json: %d manifests, want 1", len(m.Manifests))
	}
	d := m.Manifests[0].Digest
	i, err := idx.Image(d)
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("reading image %s: %w", d, err)
	}
	return i, d, nil
}

// remoteOptions are the registry client's options: the credentials, and
// a transport that refuses plain HTTP unless dest allows it.
func remoteOptions(ctx context.Context, dest Destination, o PushOptions) []remote.Option {
	t := o.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithTransport(httpsOnly{next: t, allowHTTP: dest.insecure}),
		remote.WithUserAgent("authbench")}
	if o.Credentials != nil {
		return append(opts, remote.WithAuth(o.Credentials.authenticator()))
	}
	return append(opts, remote.WithAuthFromKeychain(authn.DefaultKeychain))
}

// httpsOnly refuses plain HTTP unless allowed. go-containerregistry falls
// back to plain HTTP by itself for private-range and loopback registries;
// credentials must not follow it there unless the user said so.
type httpsOnly struct {
	next      http.RoundTripper
	allowHTTP bool
}

func (h httpsOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" && !h.allowHTTP {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, errPlainHTTP
	}
	return h.next.RoundTrip(r)
}

var errPlainHTTP = errors.New("refusing plain HTTP to the registry (TLS is required; --insecure-registry allows plain HTTP to a registry on loopback only)")

// Tag is the tag of img's reference (sha-... for authbench's own).
func Tag(img Image) (string, error) {
	t, err := name.NewTag(img.Ref)
	if err != nil {
		return "", fmt.Errorf("image reference %q: %w", img.Ref, err)
	}
	return t.TagStr(), nil
}
