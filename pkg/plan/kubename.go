package plan

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Kubernetes names reach API paths ("/api/v1/namespaces/NS/configmaps"),
// where a "?", "#" or "/" would change which objects a request names: a
// DELETE of "victim?" reads as a delete of namespace victim. They are
// therefore parsed once into types that can only hold what Kubernetes
// itself accepts, and the code that builds paths takes those types.

// Namespace is a valid Kubernetes namespace name (an RFC 1123 label: at
// most 63 lower case letters, digits and '-', starting and ending with a
// letter or digit). The zero value is unset: whoever uses it picks the
// default.
type Namespace struct{ s string }

// DefaultNamespace is Kubernetes's own default namespace.
var DefaultNamespace = Namespace{"default"}

// ParseNamespace parses s as a namespace name; "" is the unset Namespace.
func ParseNamespace(s string) (Namespace, error) {
	if s == "" {
		return Namespace{}, nil
	}
	if why := dns1123Label(s); why != "" {
		return Namespace{}, fmt.Errorf("not a valid Kubernetes namespace: %s", why)
	}
	return Namespace{s}, nil
}

// MustNamespace is ParseNamespace for names written in the code; it panics
// on an invalid one.
func MustNamespace(s string) Namespace {
	n, err := ParseNamespace(s)
	if err != nil {
		panic(fmt.Sprintf("namespace %q: %v", s, err))
	}
	return n
}

// String is the name, "" when unset.
func (n Namespace) String() string { return n.s }

// IsZero reports whether the namespace is unset.
func (n Namespace) IsZero() bool { return n.s == "" }

// Or is n, or def when n is unset.
func (n Namespace) Or(def Namespace) Namespace {
	if n.IsZero() {
		return def
	}
	return n
}

// MarshalJSON writes the name as a string.
func (n Namespace) MarshalJSON() ([]byte, error) { return json.Marshal(n.s) }

// UnmarshalJSON parses a string, so that a namespace read back (an agent's
// configuration, a plan) is as valid as one given.
func (n *Namespace) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseNamespace(s)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	*n = v
	return nil
}

// ObjectName is a valid name of a Kubernetes object such as a Job, a
// ConfigMap or a Secret (an RFC 1123 subdomain: at most 253 characters,
// dot-separated labels of lower case letters, digits and '-').
type ObjectName struct{ s string }

// ParseObjectName parses s as an object name; "" is not one.
func ParseObjectName(s string) (ObjectName, error) {
	if why := dns1123Subdomain(s); why != "" {
		return ObjectName{}, fmt.Errorf("not a valid Kubernetes object name: %s", why)
	}
	return ObjectName{s}, nil
}

// MustObjectName is ParseObjectName for names the code builds itself; it
// panics on an invalid one.
func MustObjectName(s string) ObjectName {
	n, err := ParseObjectName(s)
	if err != nil {
		panic(fmt.Sprintf("object name %q: %v", s, err))
	}
	return n
}

// String is the name.
func (n ObjectName) String() string { return n.s }

// IsZero reports whether the name is unset.
func (n ObjectName) IsZero() bool { return n.s == "" }

// MarshalJSON writes the name as a string.
func (n ObjectName) MarshalJSON() ([]byte, error) { return json.Marshal(n.s) }

// UnmarshalJSON parses a string; "" stays unset.
func (n *ObjectName) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		*n = ObjectName{}
		return nil
	}
	v, err := ParseObjectName(s)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	*n = v
	return nil
}

// CheckLabel checks a label key and value as Kubernetes does (a node
// selector's): the key an optional subdomain prefix and '/' before a
// name of at most 63 letters, digits, '-', '_' and '.'; the value such a
// name or "".
func CheckLabel(key, value string) error {
	name := key
	if prefix, rest, ok := strings.Cut(key, "/"); ok {
		if why := dns1123Subdomain(prefix); why != "" {
			return fmt.Errorf("label key %q: prefix %s", key, why)
		}
		name = rest
	}
	if why := labelName(name); why != "" || name == "" {
		if why == "" {
			why = "must not be empty"
		}
		return fmt.Errorf("label key %q: name %s", key, why)
	}
	if why := labelName(value); why != "" {
		return fmt.Errorf("label value %q: %s", value, why)
	}
	return nil
}

// CheckDNSLabel checks s as an RFC 1123 label, such as a container name.
func CheckDNSLabel(s string) error {
	if why := dns1123Label(s); why != "" {
		return fmt.Errorf("not a valid RFC 1123 label: %s", why)
	}
	return nil
}
