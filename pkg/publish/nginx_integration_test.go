//go:build integration

package publish

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// frontDoor is a real nginx terminating TLS (with a CA made for the test)
// in front of a search server: one port requires basic auth, the other a
// bearer token.
type frontDoor struct {
	basicURL, bearerURL string
	caFile              string
	passwordFile        string
	tokenFile           string
	user                string
}

// startNginx starts nginx in its own process group, stopped at cleanup.
func startNginx(t *testing.T, upstream string) *frontDoor {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatalf("finding nginx (the lab's apt step installs it): %v", err)
	}
	// nginx's workers run as nobody when started by root: the directory
	// and the htpasswd file must be readable by them.
	dir, err := os.MkdirTemp("", "authbench-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	f := &frontDoor{caFile: filepath.Join(dir, "ca.pem"), passwordFile: filepath.Join(dir, "password"),
		tokenFile: filepath.Join(dir, "token"), user: "publisher"}
	writeCerts(t, dir)
	password, token := randomHex(t), randomHex(t)
	must(t, os.WriteFile(f.passwordFile, []byte(password+"\n"), 0o600))
	must(t, os.WriteFile(f.tokenFile, []byte(token+"\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(f.user+":{PLAIN}"+password+"\n"), 0o644))
	basic, bearer := freePort(t), freePort(t)
	conf := fmt.Sprintf(nginxConf, dir, basic, bearer, token, upstream)
	must(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644))
	cmd := exec.Command(bin, "-e", filepath.Join(dir, "error.log"), "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, _ := os.Create(filepath.Join(dir, "stderr.log"))
	cmd.Stdout, cmd.Stderr = out, out
	must(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stopGroup(cmd.Process.Pid, exited) })
	f.basicURL = "https://127.0.0.1:" + strconv.Itoa(basic)
	f.bearerURL = "https://127.0.0.1:" + strconv.Itoa(bearer)
	for _, p := range []int{basic, bearer} {
		if err := awaitPort(p, exited); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx: %v\n%s", err, log)
		}
	}
	return f
}

const nginxConf = `daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_max_body_size 64m;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  ssl_certificate %[1]s/server.pem;
  ssl_certificate_key %[1]s/server.key;
  server {
    listen 127.0.0.1:%[2]d ssl;
    auth_basic "authbench";
    auth_basic_user_file %[1]s/htpasswd;
    location / { proxy_pass %[5]s; }
  }
  server {
    listen 127.0.0.1:%[3]d ssl;
    location / {
      if ($http_authorization != "Bearer %[4]s") { return 401; }
      proxy_pass %[5]s;
    }
  }
}
`

func awaitPort(port int, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		default:
		}
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("port %d not listening", port)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// writeCerts makes a CA and a server certificate for 127.0.0.1 signed by
// it: ca.pem, server.pem, server.key in dir.
func writeCerts(t *testing.T, dir string) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "authbench test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	must(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	must(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	srv := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, srv, caCert, &key.PublicKey, caKey)
	must(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	must(t, err)
	write := func(name, typ string, b []byte, mode os.FileMode) {
		must(t, os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), mode))
	}
	write("ca.pem", "CERTIFICATE", caDER, 0o644)
	write("server.pem", "CERTIFICATE", der, 0o644)
	write("server.key", "PRIVATE KEY", keyDER, 0o600)
}
