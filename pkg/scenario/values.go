package scenario

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/plan"
)

// duration is written "1.5s", "250ms", "5m"; a bare 0 is accepted.
type duration plan.Duration

func (x *duration) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && n.Value == "0" {
		*x = 0
		return
	}
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		d.fail(n, path, "want a duration, got the bare number %s: add a unit, such as \"%ss\" or \"%sms\"", n.Value, n.Value, n.Value)
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.wrongType(n, path, `a duration such as "5s"`)
		return
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		d.fail(n, path, "want a duration such as \"5s\" or \"250ms\", got %s", describe(n))
		return
	}
	*x = duration(v)
}

func (x duration) std() time.Duration { return time.Duration(x) }

// fraction is written as a fraction (0.999) or a percentage ("99.9%").
type fraction float64

func (x *fraction) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && strings.HasSuffix(n.Value, "%") {
		f, err := plan.ParsePercent(n.Value)
		if err != nil {
			d.fail(n, path, "want a percentage such as \"99.9%%\", got %s", describe(n))
			return
		}
		*x = fraction(f)
		return
	}
	f, ok := d.number(n, path)
	if ok {
		*x = fraction(f)
	}
}

// warmup is a count of requests (100) or a duration ("10s").
type warmup struct {
	requests int64
	duration time.Duration
}

func (x *warmup) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		if i, ok := d.integer(n, path); ok {
			x.requests = i
		}
		return
	}
	var dur duration
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		dur.decodeNode(d, n, path)
		x.duration = dur.std()
		return
	}
	d.wrongType(n, path, `a number of requests or a duration such as "10s"`)
}

// headerList is written as a mapping {Name: value}, or as a list of
// "Name: value" strings or {name: ..., value: ...} mappings (which can
// repeat a header).
type headerList []plan.Header

// headerSpec is one {name, value} item of a header list.
type headerSpec struct {
	// Name is the header's name. Required.
	Name string `yaml:"name"`
	// Value is the header's value. Default "".
	Value string `yaml:"value"`
}

func (h *headerList) decodeNode(d *decoder, n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		for _, kv := range d.pairs(n, path, 0) {
			d.header(h, kv.key, kv.key.Value, kv.val, join(path, kv.key.Value))
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			d.headerItem(h, resolve(item), fmt.Sprintf("%s[%d]", path, i))
		}
	default:
		d.wrongType(n, path, `a mapping {Name: value} or a list of "Name: value"`)
	}
}

func (d *decoder) headerItem(h *headerList, item *yaml.Node, path string) {
	switch {
	case item.Kind == yaml.ScalarNode && !isNull(item):
		name, value, ok := strings.Cut(item.Value, ":")
		if !ok {
			d.fail(item, path, "want \"Name: value\", got %s", describe(item))
			return
		}
		d.add(h, item, strings.TrimSpace(name), strings.TrimSpace(value), path)
	case item.Kind == yaml.MappingNode:
		var hs headerSpec
		before := d.nerr
		d.decode(item, reflectValue(&hs), path, item.Line)
		if d.nerr != before {
			return
		}
		if hs.Name == "" {
			d.fail(item, join(path, "name"), "required")
			return
		}
		d.add(h, item, hs.Name, hs.Value, path)
	default:
		d.wrongType(item, path, `"Name: value" or {name: ..., value: ...}`)
	}
}

// header adds one entry of the mapping form.
func (d *decoder) header(h *headerList, key *yaml.Node, name string, val *yaml.Node, path string) {
	val = resolve(val)
	switch {
	case isNull(val):
		d.add(h, key, name, "", path)
	case val.Kind == yaml.ScalarNode:
		d.add(h, key, name, val.Value, path)
	default:
		d.wrongType(val, path, "a header value")
	}
}

// add checks a header and appends it. Values are never quoted back: an
// Authorization header's value is a secret.
func (d *decoder) add(h *headerList, n *yaml.Node, name, value, path string) {
	switch err := plan.CheckHeaderValue(name, value); {
	case plan.CheckHeaderName(name) != nil:
		d.fail(n, path, "%v", plan.CheckHeaderName(name))
	case strings.EqualFold(name, "Host"):
		d.fail(n, path, "use the target's host field to override the Host header")
	case err != nil:
		d.fail(n, path, "%v", err)
	default:
		*h = append(*h, plan.Header{Name: name, Value: value})
	}
}
