package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// builder turns a decoded file into a plan, checking values that the types
// alone do not rule out.
type builder struct {
	*decoder
	name string // the scenario file, as given
	dir  string // relative paths in the file are relative to this
	// lines maps the settings given to their lines, for plan.FieldErrors.
	lines map[string]int
}

// errAt records a problem with field key of the schema struct s, decoded at
// path. key "" means s as a whole. Fields that failed to decode are not
// reported again, nor is a struct as a whole when one of its fields failed:
// "no token source" after "token.env: want a string" would be noise.
func (b *builder) errAt(s any, path, key, format string, args ...any) {
	p := join(path, key)
	if b.failed[p] || (key != "" && b.failed[path]) || (key == "" && b.partial[path]) {
		return
	}
	b.errorf(b.line(s, key), p, format, args...)
}

// refuse reports a value the plan's checks refused at its line, and marks
// it so that the plan layer's findings (settingErrors) do not repeat it.
func (b *builder) refuse(s any, path, key string, err error) {
	b.errAt(s, path, key, "%v", err)
	b.failed[join(path, key)] = true
}

// line is where field key of the schema struct s was written; key ""
// means s as a whole.
func (b *builder) line(s any, key string) int {
	line := 0
	if pos := b.pos[s]; pos != nil {
		line = pos.line
		if k := pos.keys[key]; k != nil {
			line = k.Line
		}
	}
	return line
}

// give records in p.Given that field key of the schema struct s, decoded
// at path, was given, and at which line, so that the plan layer's checks
// name it.
func (b *builder) give(p *plan.Plan, s any, path, key string) {
	field := join(path, key)
	line := b.line(s, key)
	b.lines[field] = line
	p.Give(field, fmt.Sprintf("%s:%d", b.name, line))
}

// gaveUnder reports whether a field under path was given.
func (b *builder) gaveUnder(p *plan.Plan, path string) bool {
	for f := range p.Given {
		if strings.HasPrefix(f, path+".") {
			return true
		}
	}
	return false
}

// settingErrors turns the plan layer's findings into the file's errors,
// at the lines where the values were given. Fields that failed to decode
// were reported already.
func (b *builder) settingErrors(p *plan.Plan) {
	var fes plan.Errors
	if !errors.As(p.ValidateSettings(), &fes) {
		return
	}
	for _, fe := range fes {
		if !b.failed[fe.Field] {
			b.errorf(b.lines[fe.Field], fe.Field, "%s", fe.Msg)
		}
	}
}

// missing records that a required field is absent, unless the struct had
// a key that did not decode: that is most likely the field, misspelt, and
// already reported.
func (b *builder) missing(s any, path, key, format string, args ...any) {
	if !b.partial[path] {
		b.errAt(s, path, key, format, args...)
	}
}

func (b *builder) plan(f *fileSpec) *plan.Plan {
	p := &plan.Plan{Name: f.Name, Source: b.name}
	if p.Name == "" {
		p.Name = defaultName(b.name)
	} else if msg := badName(p.Name); msg != "" {
		b.errAt(f, "", "name", "%s", msg)
	}
	if len(f.Targets) == 0 {
		b.missing(f, "", "targets", "at least one target is required: targets: [{url: https://...}]")
	}
	for i := range f.Targets {
		p.Targets = append(p.Targets, b.target(&f.Targets[i], fmt.Sprintf("targets[%d]", i)))
	}
	b.load(p, &f.Load)
	b.client(p, &f.Client)
	b.slo(p, f.SLO)
	p.Observe = b.observe(f.Observe)
	p.Prometheus = b.prometheus(f.Prometheus)
	p.Capacity = b.capacity(f.Capacity)
	p.Execution = b.execution(p, f.Execution)
	p.Publish = b.publish(p, f.Publish)
	if f.SampleInterval != nil {
		p.SampleInterval = plan.Duration(*f.SampleInterval)
		b.give(p, f, "", "sample_interval")
	}
	p.Lab = b.labDir(f)
	b.uniqueNames(f, p)
	b.settingErrors(p)
	return p
}

// labDir is the lab directory the file names, relative paths resolved
// against the file's directory.
func (b *builder) labDir(f *fileSpec) string {
	if f.Lab == "" || filepath.IsAbs(f.Lab) {
		return f.Lab
	}
	return filepath.Join(b.dir, f.Lab)
}

// defaultName is the file's name without its extension.
func defaultName(file string) string {
	base := filepath.Base(file)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || badName(name) != "" {
		return plan.DefaultName
	}
	return name
}

// badName explains why a name cannot label runs and files.
func badName(s string) string {
	if s == "." || s == ".." || strings.ContainsAny(s, `/\`) || strings.ContainsFunc(s, isControl) {
		return fmt.Sprintf("%q cannot be used as a name: no slashes or control characters", s)
	}
	return ""
}

func isControl(r rune) bool { return r < ' ' || r == 0x7f }

func (b *builder) target(t *targetSpec, path string) plan.Target {
	pt := plan.Target{
		Name: t.Name, URL: t.URL, Method: strings.ToUpper(t.Method), Headers: t.Headers,
		Host: t.Host, Layers: t.Layers,
	}
	if msg := badName(t.Name); t.Name != "" && msg != "" {
		b.errAt(t, path, "name", "%s", msg)
	}
	b.url(t, path, "url", t.URL)
	if err := plan.CheckMethod(t.Method); t.Method != "" && err != nil {
		b.refuse(t, path, "method", err)
	}
	if err := plan.CheckHost(t.Host); t.Host != "" && err != nil {
		b.refuse(t, path, "host", err)
	}
	pt.Body, pt.BodyFile = b.body(t, path)
	if t.Token != nil {
		pt.Token = b.token(t.Token, join(path, "token"))
	}
	b.layers(t, path)
	for i := range t.Rungs {
		pt.Rungs = append(pt.Rungs, b.rung(t, &t.Rungs[i], fmt.Sprintf("%s.rungs[%d]", path, i)))
	}
	return pt
}

// url checks an absolute http(s) URL. Messages hide a password in it.
func (b *builder) url(s any, path, key, raw string) {
	if raw == "" {
		b.missing(s, path, key, "required: an absolute http or https URL")
		return
	}
	u, err := url.Parse(raw)
	var ue *url.Error
	switch {
	case errors.As(err, &ue):
		b.errAt(s, path, key, "not a URL: %v", ue.Err)
	case err != nil:
		b.errAt(s, path, key, "not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		b.errAt(s, path, key, "want an absolute http or https URL, got %q", u.Redacted())
	case u.Host == "":
		b.errAt(s, path, key, "no host in %q", u.Redacted())
	case plan.CheckPort(u.Port()) != nil && u.Port() != "":
		b.errAt(s, path, key, "%v", plan.CheckPort(u.Port()))
	case hasPassword(u):
		b.errAt(s, path, key, "%q holds a password, which would be recorded with the run: use a token or a header instead", u.Redacted())
	}
}

func hasPassword(u *url.URL) bool {
	_, ok := u.User.Password()
	return ok
}

func (b *builder) body(t *targetSpec, path string) ([]byte, string) {
	switch {
	case t.Body != nil && t.BodyFile != "":
		b.errAt(t, path, "body_file", "give body or body_file, not both")
	case t.Body != nil:
		return []byte(*t.Body), ""
	case t.BodyFile != "":
		p := b.resolve(t.BodyFile)
		data, err := boundedio.ReadFile(p, boundedio.Body)
		if err != nil {
			b.errAt(t, path, "body_file", "%s", fileProblem(p, err))
			return nil, ""
		}
		return data, p
	}
	return nil, ""
}

func (b *builder) layers(t *targetSpec, path string) {
	for i, l := range t.Layers {
		switch {
		case strings.TrimSpace(l) == "":
			b.errAt(t, path, "layers", "layer %d has no name", i+1)
		case slices.Index(t.Layers, l) < i:
			b.errAt(t, path, "layers", "layer %q is listed twice", l)
		}
	}
}

func (b *builder) rung(t *targetSpec, r *rungSpec, path string) plan.Rung {
	pr := plan.Rung{Layer: r.Layer, URL: r.URL, Headers: r.Headers}
	switch {
	case r.Layer == "":
		b.missing(r, path, "layer", "required: which of the target's layers this reaches")
	case len(t.Layers) > 0 && !slices.Contains(t.Layers, r.Layer):
		msg := fmt.Sprintf("%q is not one of the target's layers [%s]", r.Layer, strings.Join(t.Layers, ", "))
		if s := suggest(r.Layer, t.Layers); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		b.errAt(r, path, "layer", "%s", msg)
	case len(t.Layers) == 0:
		b.errAt(r, path, "layer", "the target has no layers: list them (layers: [...]) to name its rungs")
	}
	b.url(r, path, "url", r.URL)
	if r.Token != nil {
		pr.Token = b.token(r.Token, join(path, "token"))
	}
	return pr
}

// uniqueNames checks target names after defaults (results are keyed by
// them) and that no layer has two rungs.
func (b *builder) uniqueNames(f *fileSpec, p *plan.Plan) {
	first := map[string]int{}
	for i, t := range p.Targets {
		if t.Name == "" {
			t.Name = plan.DefaultTargetName(t.URL)
		}
		if t.Name == "" {
			continue
		}
		if j, dup := first[t.Name]; dup {
			key := "name"
			if f.Targets[i].Name == "" {
				key = ""
			}
			b.errAt(&f.Targets[i], fmt.Sprintf("targets[%d]", i), key,
				"target name %q is also used by targets[%d]: give each target its own name", t.Name, j)
			continue
		}
		first[t.Name] = i
	}
	for i := range f.Targets {
		t := &f.Targets[i]
		seen := map[string]bool{}
		for j := range t.Rungs {
			r := &t.Rungs[j]
			if r.Layer != "" && seen[r.Layer] {
				b.errAt(r, fmt.Sprintf("targets[%d].rungs[%d]", i, j), "layer", "layer %q has two rungs", r.Layer)
			}
			seen[r.Layer] = true
		}
	}
}

// resolve makes a path from the file relative to the file's directory.
func (b *builder) resolve(p string) string {
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(b.dir, p)
}

// file resolves a path and checks that it names a readable regular file,
// so that a typo is reported with its line rather than mid-run.
func (b *builder) file(s any, path, key, p string) string {
	if p == "" {
		return ""
	}
	abs := b.resolve(p)
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		b.errAt(s, path, key, "%s", fileProblem(abs, err))
	case fi.IsDir():
		b.errAt(s, path, key, "%s is a directory, not a file", abs)
	}
	return abs
}

func fileProblem(p string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("file %s does not exist", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("cannot read %s: %v", p, pe.Err)
	}
	return err.Error()
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (b *builder) envVar(s any, path, key, name string) {
	if name != "" && !envName.MatchString(name) {
		b.errAt(s, path, key, "want the name of an environment variable, such as TOKEN, got %q", name)
	}
}

// token checks that exactly one source is given, and resolves its paths.
func (b *builder) token(t *tokenSpec, path string) *auth.Spec {
	s := &auth.Spec{Env: t.Env, Command: t.Command}
	var kinds []string
	for _, k := range []struct {
		name string
		set  bool
	}{{"env", t.Env != ""}, {"file", t.File != ""}, {"command", t.Command != ""}, {"oidc", t.OIDC != nil}, {"pool", t.Pool != nil}} {
		if k.set {
			kinds = append(kinds, k.name)
		}
	}
	switch {
	case len(kinds) == 0:
		b.errAt(t, path, "", "no token source: give one of env, file, command, oidc or pool")
	case len(kinds) > 1:
		b.errAt(t, path, "", "give only one token source, not %s", strings.Join(kinds, " and "))
	}
	b.envVar(t, path, "env", t.Env)
	s.File = b.file(t, path, "file", t.File)
	if t.Refresh != nil {
		switch {
		case t.Command == "":
			b.errAt(t, path, "refresh", "refresh is for command tokens: file tokens are re-read when they change, oidc tokens are renewed before they expire")
		case *t.Refresh <= 0:
			b.errAt(t, path, "refresh", "must be positive, got %s", t.Refresh.std())
		default:
			s.Refresh = t.Refresh.std().String()
		}
	}
	if t.OIDC != nil {
		s.OIDC = b.oidc(t.OIDC, join(path, "oidc"))
	}
	if t.Pool != nil {
		s.Pool = b.pool(t.Pool, join(path, "pool"))
	}
	return s
}

// pool checks a token pool and resolves its file and sources.
func (b *builder) pool(p *poolSpec, path string) *auth.Pool {
	out := &auth.Pool{File: b.file(p, path, "file", p.File), Order: p.Order}
	switch p.Order {
	case "", auth.OrderRoundRobin, auth.OrderRandom:
	default:
		b.errAt(p, path, "order", "want %q or %q, got %q", auth.OrderRoundRobin, auth.OrderRandom, p.Order)
	}
	if p.File == "" && len(p.Sources) == 0 {
		b.errAt(p, path, "", "give a file of tokens or a list of sources")
	}
	for i, src := range p.Sources {
		sp := fmt.Sprintf("%s[%d]", join(path, "sources"), i)
		if src == nil {
			b.errAt(p, path, "sources", "sources[%d] is empty", i)
			continue
		}
		if src.Pool != nil {
			b.errAt(src, sp, "pool", "a pool cannot hold a pool")
			continue
		}
		out.Sources = append(out.Sources, *b.token(src, sp))
	}
	return out
}
