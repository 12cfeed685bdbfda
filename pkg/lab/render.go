package lab

import (
	"bytes"
	"embed"
	"fmt"
	"path/filepath"
	"text/template"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// renderData is what every config template sees.
type renderData struct {
	Dir         string
	Host        string
	Ports       map[string]int
	Certs       Certs
	Namespace   string
	EchoService string
	// User and TokenFile are set for kubeconfig.tmpl.
	User      string
	TokenFile string
}

// render executes templates/NAME.tmpl with d. A port the template names
// that was not allocated is an error, not an empty string.
func render(name string, d renderData) ([]byte, error) {
	funcs := template.FuncMap{"port": func(n string) (int, error) {
		p, ok := d.Ports[n]
		if !ok {
			return 0, fmt.Errorf("no port allocated for %s", n)
		}
		return p, nil
	}}
	t, err := template.New(name+".tmpl").Funcs(funcs).Option("missingkey=error").
		ParseFS(templateFS, "templates/"+name+".tmpl")
	if err != nil {
		return nil, fmt.Errorf("parsing template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// renderTo renders a template into file (mode 0600: configs name secrets'
// paths and some hold keys' paths; nothing else needs to read them).
func renderTo(file, name string, d renderData) error {
	b, err := render(name, d)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(file, b, 0o600); err != nil {
		return err
	}
	return nil
}

// confPath is DIR/conf/NAME.
func confPath(dir, name string) string { return filepath.Join(dir, "conf", name) }
