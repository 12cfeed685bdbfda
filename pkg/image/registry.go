package image

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Destination is where an image is pushed: a registry host, a
// repository and a tag, validated. Only a loopback registry may be plain
// HTTP (Insecure); every other one is reached over verified TLS.
type Destination struct {
	tag      name.Tag
	insecure bool
}

// ParseDestination validates REF as HOST[:PORT]/PATH[:TAG]. The registry
// host is required (no implicit Docker Hub), and a scheme, credentials or
// a digest are refused. An empty tag becomes defaultTag. insecure (plain
// HTTP) is allowed only for a loopback host.
func ParseDestination(ref, defaultTag string, insecure bool) (Destination, error) {
	if err := checkRefText(ref); err != nil {
		return Destination{}, err
	}
	if first, _, ok := strings.Cut(ref, "/"); !ok || !strings.ContainsAny(first, ".:[") && first != "localhost" {
		return Destination{}, fmt.Errorf("image reference %q: name its registry host first (e.g. registry.example.com/team/authbench)", ref)
	}
	opts := []name.Option{name.StrictValidation}
	if insecure {
		opts = append(opts, name.Insecure)
	}
	repo, tag := ref, defaultTag
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag = ref[:i], ref[i+1:]
	}
	t, err := name.NewTag(repo+":"+tag, opts...)
	if err != nil {
		return Destination{}, fmt.Errorf("image reference %q: %w", ref, err)
	}
	host := t.RegistryStr()
	if !strings.HasPrefix(ref, host+"/") {
		return Destination{}, fmt.Errorf("image reference %q: name its registry host first (e.g. registry.example.com/team/authbench)", ref)
	}
	if insecure && !IsLoopbackHost(host) {
		return Destination{}, fmt.Errorf("image reference %q: --insecure-registry (plain HTTP) is only for a registry on loopback, not %s", ref, host)
	}
	return Destination{tag: t, insecure: insecure}, nil
}

// RegistryDestination is REGISTRY/NAME:TAG, for a registry prefix such as
// run's --image-registry (HOST[:PORT][/PATH]).
func RegistryDestination(registry, imageName, tag string, insecure bool) (Destination, error) {
	r := strings.TrimSuffix(registry, "/")
	if r == "" {
		return Destination{}, errors.New("image registry is empty")
	}
	if strings.ContainsAny(r, "@") || strings.LastIndex(r, ":") > strings.LastIndex(r, "/") && strings.Contains(r, "/") {
		return Destination{}, fmt.Errorf("image registry %q: give HOST[:PORT][/PATH], without a tag or digest", registry)
	}
	return ParseDestination(r+"/"+imageName+":"+tag, tag, insecure)
}

// checkRefText refuses what name parsing would take in the wrong sense or
// what must never reach a registry client: a URL scheme, credentials, a
// digest, spaces.
func checkRefText(ref string) error {
	switch {
	case ref == "":
		return errors.New("image reference is empty")
	case strings.Contains(ref, "://"):
		return fmt.Errorf("image reference %q: give HOST[:PORT]/PATH[:TAG] without a scheme (use --insecure-registry for plain HTTP on loopback)", ref)
	case strings.Contains(ref, "@"):
		return fmt.Errorf("image reference %q: no credentials or digest in it (the digest is the pushed image's own)", ref)
	case strings.ContainsAny(ref, " \t\r\n"):
		return fmt.Errorf("image reference %q: contains white space", ref)
	}
	return nil
}

// IsLoopbackHost says whether HOST[:PORT] is localhost or a loopback IP.
func IsLoopbackHost(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Host is the registry's HOST[:PORT].
func (d Destination) Host() string { return d.tag.RegistryStr() }

// Insecure says whether the registry is reached over plain HTTP.
func (d Destination) Insecure() bool { return d.insecure }

// String is HOST[:PORT]/PATH:TAG.
func (d Destination) String() string { return d.tag.String() }

// Repository is HOST[:PORT]/PATH.
func (d Destination) Repository() string { return d.tag.Context().String() }

// DigestRef is HOST[:PORT]/PATH@DIGEST: the reference a pod pins.
func (d Destination) DigestRef(digest string) string { return d.Repository() + "@" + digest }
