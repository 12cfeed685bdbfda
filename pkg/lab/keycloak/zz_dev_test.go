//go:build kcdev

package keycloak

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"encoding/json"
)

func TestDev(t *testing.T) {
	c := Config{Home: "/tmp/kcdev/keycloak-26.7.3", DataDir: "/tmp/kcexp/data1", HTTPSPort: 18443,
		CertFile: "/tmp/kcexp/cert.pem", KeyFile: "/tmp/kcexp/key.pem", AdminPassword: "adminpw", ClientSecret: "s3cret",
		Users: []User{{Name: "alice", Password: "alicepw"}, {Name: "bob", Password: "bobpw"}}}
	ctx := context.Background()
	if err := Ready(ctx, c); err != nil { t.Fatal(err) }
	t0 := time.Now()
	if err := Configure(ctx, c); err != nil { t.Fatal(err) }
	t.Logf("configure %s", time.Since(t0))
	t0 = time.Now()
	if err := Configure(ctx, c); err != nil { t.Fatal(err) }
	t.Logf("configure again %s", time.Since(t0))
	hc, _ := HTTPClient(c)
	for _, f := range []url.Values{
		{"grant_type": {"password"}, "client_id": {"authbench"}, "client_secret": {"s3cret"}, "username": {"alice"}, "password": {"alicepw"}},
		{"grant_type": {"client_credentials"}, "client_id": {"authbench"}, "client_secret": {"s3cret"}},
	} {
		var tok map[string]any
		err := do(ctx, hc, http.MethodPost, TokenURL(c), "", formBody{f}, &tok)
		if err != nil { t.Fatal(err) }
		parts := strings.Split(tok["access_token"].(string), ".")
		b, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var m map[string]any
		json.Unmarshal(b, &m)
		out, _ := json.MarshalIndent(m, "", " ")
		h, _ := base64.RawURLEncoding.DecodeString(parts[0])
		t.Logf("%s\n%s", h, out)
	}
}
