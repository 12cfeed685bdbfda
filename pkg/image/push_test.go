package image

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// quiet keeps the test registry's request log out of the test output.
var quiet = registry.Logger(log.New(io.Discard, "", 0))

const testPassword = "s3cret-Pa55-word"

// basicAuth guards h with one user's basic auth, as a registry does.
func basicAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "pusher" || p != testPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// testImage writes a small image tarball.
func testImage(t *testing.T) Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.tar")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spec := Spec{Ref: "authbench.local/x:v1", Entrypoint: []string{"/x"}, Files: []File{{Path: "/x", Data: []byte("#!"), Mode: 0o755}}}
	if _, err := WriteLayout(f, spec); err != nil {
		t.Fatal(err)
	}
	return Image{Name: "x", Ref: spec.Ref, Path: path}
}

func layoutDigest(t *testing.T, img Image) string {
	t.Helper()
	f, err := os.Open(img.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ReadLayout(f)
	if err != nil {
		t.Fatal(err)
	}
	return l.Index.Manifests[0].Digest
}

func TestPushToRegistry(t *testing.T) {
	plain := httptest.NewServer(basicAuth(registry.New(quiet)))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(basicAuth(registry.New(quiet)))
	defer tlsSrv.Close()
	img := testImage(t)
	good := &Credentials{User: "pusher", password: testPassword}
	tests := []struct {
		name     string
		srv      *httptest.Server
		insecure bool
		creds    *Credentials
		wantErr  string
	}{
		{"plain HTTP on loopback with --insecure-registry", plain, true, good, ""},
		{"plain HTTP refused without it", plain, false, good, "refusing plain HTTP"},
		{"verified TLS", tlsSrv, false, good, ""},
		{"wrong password", tlsSrv, false, &Credentials{User: "pusher", password: "not-" + testPassword}, "401 Unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			host := strings.TrimPrefix(strings.TrimPrefix(tc.srv.URL, "https://"), "http://")
			dest, err := ParseDestination(host+"/team/x", "v1", tc.insecure)
			if err != nil {
				t.Fatal(err)
			}
			o := PushOptions{Credentials: tc.creds, Transport: tc.srv.Client().Transport}
			p, err := Push(context.Background(), img, dest, o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), tc.creds.password) {
					t.Fatalf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := layoutDigest(t, img); p.Digest != want || p.Ref != host+"/team/x@"+want || p.Existed {
				t.Fatalf("pushed %+v, want digest %s, not existing", p, want)
			}
			again, err := Push(context.Background(), img, dest, o)
			if err != nil || !again.Existed || again.Digest != p.Digest {
				t.Fatalf("second push %+v, %v: want existed, same digest", again, err)
			}
		})
	}
}

func TestCredentialsNeverFormatThePassword(t *testing.T) {
	c := &Credentials{User: "u", password: testPassword}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", *c, *c, *c, c)} {
		if strings.Contains(s, testPassword) {
			t.Errorf("formatted credentials show the password: %s", s)
		}
	}
}
