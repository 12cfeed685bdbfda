// Command soak_stages is the staged open loop's soak through token expiry:
// an OpenID provider on 127.0.0.1 issues access tokens living 60 s, and
// bin/authbench runs a two-stage, ten-minute schedule against a backend
// that accepts only live tokens. It reports authbench's resident memory
// over the run (it must stay flat), every request sent with an expired or
// unknown token (there must be none) and each stage's figures.
//
//	make build && go run ./bench/soak_stages                     # 10 minutes
//	go run ./bench/soak_stages -stages "30s:50,30s:50-100" -life 20s   # a quick look
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

func main() {
	var (
		bin    = flag.String("bin", "bin/authbench", "the authbench binary")
		stages = flag.String("stages", "5m:100,5m:100-300", "the schedule (--stages)")
		life   = flag.Duration("life", time.Minute, "access token lifetime")
		conc   = flag.Int("c", 50, "concurrency")
		every  = flag.Duration("sample", 5*time.Second, "how often authbench's memory is read")
	)
	flag.Parse()
	if err := soak(*bin, *stages, *life, *conc, *every); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func soak(bin, stages string, life time.Duration, conc int, every time.Duration) error {
	dir, err := os.MkdirTemp("", "authbench-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	const secret = "soak-client-secret"
	p := newIdP(life, secret)
	defer p.srv.Close()
	be := newBackend(p)
	defer be.srv.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := p.writeCA(ca); err != nil {
		return err
	}
	scen := filepath.Join(dir, "soak.yaml")
	yaml := fmt.Sprintf("name: soak\ntargets:\n  - name: backend\n    url: %s/\n    token:\n      oidc: {issuer: %q, client_id: soak, client_secret_env: SOAK_CLIENT_SECRET, cacert: %q}\nload:\n  concurrency: %d\n  stages: %q\n",
		be.srv.URL, p.srv.URL, ca, conc, stages)
	if err := os.WriteFile(scen, []byte(yaml), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "run", "-f", scen, "--out", filepath.Join(dir, "runs"), "-o", "json")
	cmd.Env = append(os.Environ(), "SOAK_CLIENT_SECRET="+secret)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	rss := sampleRSS(cmd, every)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("authbench run: %v\n%s", err, errb.String())
	}
	var run results.Run
	if err := json.Unmarshal(out.Bytes(), &run); err != nil {
		return fmt.Errorf("reading run.json: %v", err)
	}
	report(run, be, p, rss, time.Since(start))
	if be.expired+be.unknown+be.bad > 0 {
		return fmt.Errorf("%d requests with an expired token, %d unknown, %d without one", be.expired, be.unknown, be.bad)
	}
	return nil
}

// sample is authbench's resident memory at one time.
type sample struct {
	at  time.Duration
	rss int64 // bytes
}

// sampleRSS reads the process's VmRSS every interval until it exits.
func sampleRSS(cmd *exec.Cmd, every time.Duration) <-chan []sample {
	done := make(chan []sample, 1)
	start := time.Now()
	go func() {
		var out []sample
		for {
			v, err := vmRSS(cmd.Process.Pid)
			if err != nil {
				done <- out
				return
			}
			out = append(out, sample{time.Since(start), v})
			time.Sleep(every)
		}
	}()
	return done
}

func vmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS: the process has exited")
}
