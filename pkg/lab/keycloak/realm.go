package keycloak

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// configHashAttribute is the realm attribute holding a hash of the realm
// representation Configure created, so a restart can skip recreating it.
const configHashAttribute = "authbench.config-sha256"

// The types below are the subsets of Keycloak's admin REST representations
// (RealmRepresentation, ClientRepresentation, ...) that Configure sets.

type realmRep struct {
	Realm                 string            `json:"realm"`
	Enabled               bool              `json:"enabled"`
	AccessTokenLifespan   int               `json:"accessTokenLifespan"`
	SSOSessionIdleTimeout int               `json:"ssoSessionIdleTimeout"`
	SSOSessionMaxLifespan int               `json:"ssoSessionMaxLifespan"`
	RegistrationAllowed   bool              `json:"registrationAllowed"`
	BruteForceProtected   bool              `json:"bruteForceProtected"`
	Attributes            map[string]string `json:"attributes,omitempty"`
	Clients               []clientRep       `json:"clients"`
	Users                 []userRep         `json:"users"`
}

type clientRep struct {
	ClientID                  string              `json:"clientId"`
	Name                      string              `json:"name"`
	Enabled                   bool                `json:"enabled"`
	Protocol                  string              `json:"protocol"`
	PublicClient              bool                `json:"publicClient"`
	ClientAuthenticatorType   string              `json:"clientAuthenticatorType"`
	Secret                    string              `json:"secret"`
	StandardFlowEnabled       bool                `json:"standardFlowEnabled"`
	ImplicitFlowEnabled       bool                `json:"implicitFlowEnabled"`
	DirectAccessGrantsEnabled bool                `json:"directAccessGrantsEnabled"`
	ServiceAccountsEnabled    bool                `json:"serviceAccountsEnabled"`
	FullScopeAllowed          bool                `json:"fullScopeAllowed"`
	DefaultClientScopes       []string            `json:"defaultClientScopes"`
	OptionalClientScopes      []string            `json:"optionalClientScopes"`
	ProtocolMappers           []protocolMapperRep `json:"protocolMappers"`
}

type protocolMapperRep struct {
	Name           string            `json:"name"`
	Protocol       string            `json:"protocol"`
	ProtocolMapper string            `json:"protocolMapper"`
	Config         map[string]string `json:"config"`
}

type userRep struct {
	Username               string          `json:"username"`
	Enabled                bool            `json:"enabled"`
	Email                  string          `json:"email,omitempty"`
	EmailVerified          bool            `json:"emailVerified"`
	FirstName              string          `json:"firstName,omitempty"`
	LastName               string          `json:"lastName,omitempty"`
	ServiceAccountClientID string          `json:"serviceAccountClientId,omitempty"`
	Credentials            []credentialRep `json:"credentials,omitempty"`
}

type credentialRep struct {
	Type      string `json:"type"`
	Value     string `json:"value"`
	Temporary bool   `json:"temporary"`
}

// realmRepresentation is the whole realm Configure creates in one request,
// shaped for the two token consumers:
//   - aud contains the client id (audience mapper): oauth2-proxy and
//     kube-apiserver (--oidc-client-id) both check it;
//   - preferred_username (scope "profile"): kube-apiserver's
//     --oidc-username-claim=preferred_username;
//   - email and email_verified=true (scope "email"): oauth2-proxy rejects a
//     token whose email_verified is false, which is why the client's service
//     account gets a verified email too, for client-credentials tokens;
//   - RS256 signatures (the realm default, and kube-apiserver's).
func realmRepresentation(c Config) realmRep {
	c = c.WithDefaults()
	lifespan := int(c.AccessTokenLifespan / time.Second)
	r := realmRep{
		Realm:               c.Realm,
		Enabled:             true,
		AccessTokenLifespan: lifespan,
		// A user session shorter than the token lifespan would cut tokens short.
		SSOSessionIdleTimeout: max(lifespan, 30*60),
		SSOSessionMaxLifespan: max(lifespan, 10*60*60),
		Clients:               []clientRep{clientRepresentation(c)},
		Users:                 []userRep{serviceAccountRepresentation(c)},
	}
	for _, u := range c.Users {
		r.Users = append(r.Users, userRepresentation(u))
	}
	r.Attributes = map[string]string{configHashAttribute: configHash(r)}
	return r
}

func clientRepresentation(c Config) clientRep {
	return clientRep{
		ClientID:                c.ClientID,
		Name:                    "authbench lab",
		Enabled:                 true,
		Protocol:                "openid-connect",
		ClientAuthenticatorType: "client-secret",
		Secret:                  c.ClientSecret,
		// Only the two grants authbench's token source uses.
		DirectAccessGrantsEnabled: true,
		ServiceAccountsEnabled:    true,
		// No realm or client roles in tokens: nothing checks them, and
		// the "roles" scope would add aud=account besides.
		FullScopeAllowed:     false,
		DefaultClientScopes:  []string{"basic", "profile", "email"},
		OptionalClientScopes: []string{},
		ProtocolMappers: []protocolMapperRep{{
			Name:           "audience " + c.ClientID,
			Protocol:       "openid-connect",
			ProtocolMapper: "oidc-audience-mapper",
			Config: map[string]string{
				"included.client.audience":  c.ClientID,
				"access.token.claim":        "true",
				"id.token.claim":            "true",
				"introspection.token.claim": "true",
			},
		}},
	}
}

// serviceAccountRepresentation is the user client-credentials tokens stand
// for. Keycloak names it service-account-CLIENTID.
func serviceAccountRepresentation(c Config) userRep {
	return userRep{
		Username:               "service-account-" + c.ClientID,
		Enabled:                true,
		Email:                  c.ClientID + "-service-account@" + defaultEmailDomain,
		EmailVerified:          true,
		ServiceAccountClientID: c.ClientID,
	}
}

func userRepresentation(u User) userRep {
	return userRep{
		Username:      u.Name,
		Enabled:       true,
		Email:         u.Email,
		EmailVerified: true,
		// Keycloak's default user profile requires both names; without them
		// the password grant fails with "Account is not fully set up".
		FirstName:   u.Name,
		LastName:    "authbench",
		Credentials: []credentialRep{{Type: "password", Value: u.Password}},
	}
}

// configHash identifies a realm representation, ignoring its attributes.
func configHash(r realmRep) string {
	r.Attributes = nil
	h := sha256.New()
	// Encoding plain structs of strings, bools and ints into a hash cannot fail.
	_ = json.NewEncoder(h).Encode(r)
	return hex.EncodeToString(h.Sum(nil))
}
