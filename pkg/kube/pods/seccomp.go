package pods

import (
	"fmt"
	"path"
	"strings"
)

// Seccomp profile types, as Kubernetes names them.
const (
	SeccompRuntimeDefault = "RuntimeDefault"
	SeccompUnconfined     = "Unconfined"
	SeccompLocalhost      = "Localhost"
)

// Seccomp is a pod's securityContext.seccompProfile. The profile decides
// the load engine's I/O path in the pod: io_uring where io_uring_setup is
// allowed, epoll where the profile refuses it (containerd 2.0's
// RuntimeDefault does; 1.6 and 1.7 allow it).
type Seccomp struct {
	// Type is SeccompRuntimeDefault, SeccompUnconfined or
	// SeccompLocalhost; "" sets no profile.
	Type string
	// Localhost is the profile's file, relative to the kubelet's seccomp
	// folder (<root-dir>/seccomp); only with SeccompLocalhost.
	Localhost string
}

// check refuses a type Kubernetes does not know and a Localhost path the
// kubelet would refuse at pod start.
func (s Seccomp) check() error {
	switch s.Type {
	case "", SeccompRuntimeDefault, SeccompUnconfined:
		if s.Localhost != "" {
			return fmt.Errorf("seccomp profile %q: a localhost file (%q) needs type %s", s.Type, s.Localhost, SeccompLocalhost)
		}
		return nil
	case SeccompLocalhost:
		if s.Localhost == "" || path.IsAbs(s.Localhost) || path.Clean(s.Localhost) != s.Localhost || strings.HasPrefix(s.Localhost, "..") {
			return fmt.Errorf("seccomp profile %s: %q is not a clean path relative to the kubelet's seccomp folder", s.Type, s.Localhost)
		}
		return nil
	}
	return fmt.Errorf("seccomp profile type %q: want %s, %s or %s", s.Type, SeccompRuntimeDefault, SeccompUnconfined, SeccompLocalhost)
}

// securityContext is the pod's securityContext, nil when no profile is set.
func (s Seccomp) securityContext() obj {
	if s.Type == "" {
		return nil
	}
	p := obj{"type": s.Type}
	if s.Type == SeccompLocalhost {
		p["localhostProfile"] = s.Localhost
	}
	return obj{"seccompProfile": p}
}
