package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// maxSteps bounds the work of decoding one file: aliases can make a small
// file expand into a huge tree (the "billion laughs").
const maxSteps = 200_000

// decoder walks a yaml.Node tree into the schema types, recording where
// each mapping was so that later checks can name a line, and collecting
// every problem it meets instead of stopping at the first.
type decoder struct {
	file   string
	errs   Errors
	full   bool            // maxErrors reached; later problems are dropped
	pos    map[any]*mapPos // schema struct pointer -> where it was
	failed map[string]bool // field paths that did not decode
	// partial marks struct paths with a field that did not decode.
	partial map[string]bool
	steps   int // decode steps taken, against maxSteps
	nerr    int // problems met, including dropped ones
}

// mapPos is where a schema struct came from.
type mapPos struct {
	line int                   // of the key naming it, or of the list item
	keys map[string]*yaml.Node // key nodes of the fields present
}

// nodeDecoder is implemented by schema types with their own YAML forms.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

// hinter gives a better message than a spelling suggestion for an unknown
// key, e.g. a secret put where only its location belongs.
type hinter interface {
	hint(key string) string
}

// typeHinter says what to write instead when a mapping is expected and
// something else was given.
type typeHinter interface {
	typeHint() string
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, pos: map[any]*mapPos{}, failed: map[string]bool{}, partial: map[string]bool{}}
}

// errorf records a problem at a line and field path.
func (d *decoder) errorf(line int, path, format string, args ...any) {
	d.nerr++
	if len(d.errs) >= maxErrors {
		d.full = true
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Field: path, Msg: fmt.Sprintf(format, args...)})
}

// fail records a problem with the value at path, and marks the path so
// that checks on the decoded value do not report it again.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.failed[path] = true
	d.errorf(n.Line, path, format, args...)
}

func (d *decoder) wrongType(n *yaml.Node, path, want string) {
	d.fail(n, path, "want %s, got %s", want, describe(n))
}

// spend counts one step and reports false once the budget is gone.
func (d *decoder) spend(n *yaml.Node, path string) bool {
	d.steps++
	if d.steps == maxSteps {
		d.errorf(n.Line, path, "too complex: aliases expand to more than %d values", maxSteps)
	}
	return d.steps < maxSteps
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// document parses data into its root mapping. It reports false when
// nothing more can be checked. An empty document is a nil root.
func (d *decoder) document(data []byte) (root *yaml.Node, ok bool) {
	defer func() {
		// yaml.v3 is third-party code fed arbitrary input: never let it
		// turn bad input into a crash.
		if r := recover(); r != nil {
			d.errorf(0, "", "malformed YAML: %v", r)
			root, ok = nil, false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, true
		}
		d.yamlError(err)
		return nil, false
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		d.errorf(firstLine(&extra), "", "only one YAML document is allowed; remove the second \"---\"")
		return nil, false
	case !errors.Is(err, io.EOF):
		d.yamlError(err)
		return nil, false
	}
	if len(doc.Content) == 0 {
		return nil, true
	}
	root = resolve(doc.Content[0])
	if isNull(root) {
		return nil, true
	}
	if root.Kind != yaml.MappingNode {
		d.errorf(root.Line, "", "want a mapping (name:, targets:, load:, ...) at the top level, got %s", describe(root))
		return nil, false
	}
	return root, true
}

func firstLine(n *yaml.Node) int {
	if len(n.Content) > 0 {
		return n.Content[0].Line
	}
	return n.Line
}

// yamlError turns "yaml: line 7: did not find expected key" into a
// problem at line 7.
func (d *decoder) yamlError(err error) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		d.errorf(line, "", "malformed YAML: %s", m[2])
		return
	}
	d.errorf(0, "", "malformed YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// decode stores n into v, which must be addressable. line is that of the
// key naming the value, used as the position of a struct.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, line int) {
	if !d.spend(n, path) {
		return
	}
	n = resolve(n)
	if isNull(n) {
		return // an empty value is an absent one
	}
	if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
		nd.decodeNode(d, n, path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		before := d.nerr
		d.decode(n, p.Elem(), path, line)
		switch {
		case d.nerr == before || p.Elem().Kind() == reflect.Struct:
			v.Set(p) // a section with a bad field still has its other fields checked
		default:
			d.failed[path] = true // a bad value stays absent, so it is not checked again
		}
	case reflect.Struct:
		d.decodeStruct(n, v, path, line)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.wrongType(n, path, "a string")
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			d.wrongType(n, path, "true or false")
			return
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	case reflect.Int, reflect.Int64:
		if i, ok := d.integer(n, path); ok {
			if v.OverflowInt(i) {
				d.fail(n, path, "%d is too large", i)
				return
			}
			v.SetInt(i)
		}
	case reflect.Float64:
		if f, ok := d.number(n, path); ok {
			v.SetFloat(f)
		}
	default:
		panic("scenario: no YAML decoding for schema type " + v.Type().String())
	}
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.wrongType(n, path, "a list")
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i), c.Line)
	}
	v.Set(s)
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, line int) {
	if n.Kind != yaml.MappingNode {
		want := "a mapping"
		if th, ok := v.Addr().Interface().(typeHinter); ok {
			want = th.typeHint()
		}
		d.fail(n, path, "want %s, got %s", want, describeKind(n))
		return
	}
	info := infoOf(v.Type())
	pos := &mapPos{line: line, keys: map[string]*yaml.Node{}}
	d.pos[v.Addr().Interface()] = pos
	before := d.nerr
	defer func() {
		if d.nerr != before {
			d.partial[path] = true
		}
	}()
	for _, kv := range d.pairs(n, path, 0) {
		name := kv.key.Value
		fpath := join(path, name)
		i, ok := info.index[name]
		switch {
		case ok:
			pos.keys[name] = kv.key
			d.decode(kv.val, v.Field(i), fpath, kv.key.Line)
		case path == "" && strings.HasPrefix(name, "x-"):
			// a top-level extension: room for anchors
		default:
			d.unknown(kv.key, fpath, v, info.names)
		}
	}
}

func (d *decoder) unknown(key *yaml.Node, path string, v reflect.Value, names []string) {
	d.failed[path] = true
	if h, ok := v.Addr().Interface().(hinter); ok {
		if msg := h.hint(key.Value); msg != "" {
			d.errorf(key.Line, path, "unknown field (%s)", msg)
			return
		}
	}
	if s := suggest(key.Value, names); s != "" {
		d.errorf(key.Line, path, "unknown field (did you mean %q?)", s)
		return
	}
	d.errorf(key.Line, path, "unknown field (known: %s)", strings.Join(names, ", "))
}

// pair is one key and value of a mapping.
type pair struct{ key, val *yaml.Node }

// pairs lists a mapping's entries: its own keys (each once), then keys from
// "<<" merges that it does not set itself, the first merge source winning.
func (d *decoder) pairs(n *yaml.Node, path string, depth int) []pair {
	var own, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !d.spend(k, path) {
			return nil
		}
		switch {
		case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
			merged = append(merged, d.merge(val, path, depth)...)
		case k.Kind != yaml.ScalarNode:
			d.errorf(k.Line, path, "keys must be plain names, got %s", describeKind(k))
		case seen[k.Value] != nil:
			d.fail(k, join(path, k.Value), "duplicate key (first at line %d)", seen[k.Value].Line)
		default:
			seen[k.Value] = k
			own = append(own, pair{k, val})
		}
	}
	for _, p := range merged {
		if seen[p.key.Value] == nil {
			seen[p.key.Value] = p.key
			own = append(own, p)
		}
	}
	return own
}

// merge returns the entries a "<<" value brings: a mapping or a list of them.
func (d *decoder) merge(val *yaml.Node, path string, depth int) []pair {
	if depth > 16 {
		d.errorf(val.Line, path, "merges (<<) nest too deep")
		return nil
	}
	val = resolve(val)
	switch val.Kind {
	case yaml.MappingNode:
		return d.pairs(val, path, depth+1)
	case yaml.SequenceNode:
		var out []pair
		for _, m := range val.Content {
			if m = resolve(m); m.Kind != yaml.MappingNode {
				d.errorf(m.Line, path, "<< merges mappings, got %s", describeKind(m))
				continue
			}
			out = append(out, d.pairs(m, path, depth+1)...)
		}
		return out
	}
	d.errorf(val.Line, path, "<< merges mappings, got %s", describeKind(val))
	return nil
}

// integer reads a whole number; 1e4 is accepted as 10000.
func (d *decoder) integer(n *yaml.Node, path string) (int64, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				d.fail(n, path, "%s is out of range", n.Value)
				return 0, false
			}
			return i, true
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && f == math.Trunc(f) {
				if math.Abs(f) >= 1<<53 {
					d.fail(n, path, "%s is out of range", n.Value)
					return 0, false
				}
				return int64(f), true
			}
		}
	}
	d.wrongType(n, path, "a whole number")
	return 0, false
}

// number reads a finite number.
func (d *decoder) number(n *yaml.Node, path string) (float64, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
		d.fail(n, path, "want a finite number, got %s", n.Value)
		return 0, false
	}
	d.wrongType(n, path, "a number")
	return 0, false
}

// resolve follows an alias to its anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names a node's type and, for short scalars, its value.
func describe(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return describeKind(n)
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	switch n.ShortTag() {
	case "!!int":
		return "integer " + v
	case "!!float":
		return "number " + v
	case "!!bool":
		return "boolean " + v
	case "!!str":
		return strconv.Quote(v)
	}
	return describeKind(n)
}

// describeKind names a node's type without its value.
func describeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "nothing"
		}
		return "a string"
	}
	return "something else"
}

func join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	}
	return path + "." + key
}

// structInfo is a schema struct's keys.
type structInfo struct {
	index map[string]int // key -> field index
	names []string       // keys in declaration order
}

var structInfos sync.Map // reflect.Type -> *structInfo

func infoOf(t reflect.Type) *structInfo {
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{index: map[string]int{}}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		si.index[name] = i
		si.names = append(si.names, name)
	}
	structInfos.Store(t, si)
	return si
}

// keysOf lists the keys of a schema struct type, for hints.
func keysOf(v any) []string {
	return infoOf(reflect.TypeOf(v)).names
}

// reflectValue is the addressable value behind a pointer.
func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
