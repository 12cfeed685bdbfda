package lab

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestScratchKeycloak(t *testing.T) {
	dir := "/tmp/labdev-kc"
	os.MkdirAll(dir, 0o700)
	s := &supervisor{dir: dir, cfg: Config{Stacks: []string{"3x"}, ReadyTimeout: 4 * time.Minute}, out: os.Stderr, procs: map[string]*proc{}, cgroups: true}
	s.cfg.complete()
	s.state = &State{Dir: dir}
	for _, d := range []string{"logs", "conf", "data", "run", "kubeconfig"} {
		os.MkdirAll(dir+"/"+d, 0o700)
	}
	certs, _ := EnsureCerts(dir)
	secrets, _ := EnsureSecrets(dir)
	ports, _ := allocatePorts(portNames(s.cfg), nil, readPorts(dir))
	client, _ := newLabClient(certs.CA)
	b := &builder{dir: dir, cfg: s.cfg, ports: ports, certs: certs, secrets: secrets, client: client}
	k, err := b.keycloak()
	if err != nil {
		t.Fatal(err)
	}
	o, err := b.oauth2Proxy()
	if err != nil {
		t.Fatal(err)
	}
	specs := []*spec{k, o}
	for _, sp := range specs {
		sp.Log = dir + "/logs/" + sp.Name + ".log"
		s.state.Components = append(s.state.Components, sp.ComponentInfo)
	}
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	err = s.runGraph(ctx, b, specs)
	t.Logf("after %s: %v", time.Since(t0), err)
	out, _ := exec.Command("ss", "-ltnp").CombinedOutput()
	t.Logf("%s", out)
	if err == nil {
		tok, err := passwordGrant(context.Background(), client, b.issuerURL(), secrets, "alice")
		t.Logf("grant: %d %v", len(tok), err)
		for _, tk := range []string{tok, "", tok[:len(tok)-3] + "AAA"} {
			err := probe(context.Background(), client, o.URL, tk, "", 200)
			t.Logf("probe: %v", err)
		}
	}
	s.stopAll()
}
