package plan

import "github.com/authbench/authbench/pkg/redact"

// MarshalJSON redacts a URL's password and secret parameters
// (redact.URL), so that run.json never records them.
func (t Target) MarshalJSON() ([]byte, error) {
	type raw Target
	r := raw(t)
	r.URL = redact.URL(t.URL)
	return marshalJSON(r)
}

// MarshalJSON redacts the rung's URL as Target's.
func (r Rung) MarshalJSON() ([]byte, error) {
	type raw Rung
	v := raw(r)
	v.URL = redact.URL(r.URL)
	return marshalJSON(v)
}

// MarshalJSON redacts the server URL as Target's.
func (p Prometheus) MarshalJSON() ([]byte, error) {
	type raw Prometheus
	v := raw(p)
	v.URL = redact.URL(p.URL)
	return marshalJSON(v)
}

// MarshalJSON redacts the server URL as Target's.
func (p Publish) MarshalJSON() ([]byte, error) {
	type raw Publish
	v := raw(p)
	v.URL = redact.URL(p.URL)
	return marshalJSON(v)
}
