//go:build integration

package auth

import (
	"os"
	"strings"
	"testing"
)

// TestKeycloak runs the password and client-credentials grants against a
// real Keycloak, such as the lab's. It is configured by environment:
// AUTHBENCH_KEYCLOAK_ISSUER (https://127.0.0.1:PORT/realms/NAME),
// AUTHBENCH_KEYCLOAK_CLIENT_ID, AUTHBENCH_KEYCLOAK_CLIENT_SECRET,
// AUTHBENCH_KEYCLOAK_USERNAME, AUTHBENCH_KEYCLOAK_PASSWORD and optionally
// AUTHBENCH_KEYCLOAK_CACERT.
func TestKeycloak(t *testing.T) {
	issuer := os.Getenv("AUTHBENCH_KEYCLOAK_ISSUER")
	if issuer == "" {
		t.Skip("AUTHBENCH_KEYCLOAK_ISSUER is not set; the lab's Keycloak sets it")
	}
	base := OIDC{
		Issuer:          issuer,
		ClientID:        os.Getenv("AUTHBENCH_KEYCLOAK_CLIENT_ID"),
		ClientSecretEnv: "AUTHBENCH_KEYCLOAK_CLIENT_SECRET",
		CACert:          os.Getenv("AUTHBENCH_KEYCLOAK_CACERT"),
	}
	password := base
	password.Username = os.Getenv("AUTHBENCH_KEYCLOAK_USERNAME")
	password.PasswordEnv = "AUTHBENCH_KEYCLOAK_PASSWORD"
	idToken := password
	idToken.UseIDToken = true
	tests := map[string]OIDC{"password": password, "client_credentials": base, "id_token": idToken}
	for name, o := range tests {
		t.Run(name, func(t *testing.T) {
			src, err := New(t.Context(), &Spec{OIDC: &o})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := src.Token(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(tok, ".") != 2 {
				t.Errorf("Keycloak's token is not a JWT (%d chars)", len(tok))
			}
		})
	}
}
