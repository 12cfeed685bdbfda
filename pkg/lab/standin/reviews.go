package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/authbench/authbench/internal/kubeapi"
)

// User is who a TokenReview says a token belongs to.
type User struct {
	Name   string   `json:"username"`
	UID    string   `json:"uid,omitempty"`
	Groups []string `json:"groups,omitempty"`
}

// review is a TokenReview's answer: Authenticated false for a token the
// API server does not accept.
type review struct {
	Authenticated bool
	User          User
}

// Resource is what the SubjectAccessReview asks about (oauth-proxy's
// delegate URL: a verb on a resource).
type Resource struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb"`
	Group       string `json:"group"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
}

var (
	tokenReviews = kubeapi.Path("apis", "authentication.k8s.io", "v1", "tokenreviews")
	accessReview = kubeapi.Path("apis", "authorization.k8s.io", "v1", "subjectaccessreviews")
)

// api makes the reviews, each after a token from its client's bucket:
// TokenReviews and SubjectAccessReviews have a bucket each, as the
// delegating authenticator and authorizer the real oauth-proxy builds each
// have their own client (at 200 QPS each, its measured 200 req/s of
// distinct tokens ran unthrottled).
type api struct {
	client       *kubeapi.Client
	authn, authz *limiter
}

func (a *api) post(ctx context.Context, lim *limiter, p kubeapi.URLPath, in, out any) error {
	if err := lim.Wait(ctx); err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	code, body, err := a.client.Do(ctx, http.MethodPost, p, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	if code != http.StatusCreated && code != http.StatusOK {
		return fmt.Errorf("POST %s: %d %s", p, code, kubeapi.Message(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("POST %s: %w", p, err)
	}
	return nil
}

// tokenReview asks whose token is.
func (a *api) tokenReview(ctx context.Context, token string) (review, error) {
	in := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
		"spec": map[string]any{"token": token}}
	var out struct {
		Status struct {
			Authenticated bool `json:"authenticated"`
			User          User `json:"user"`
		} `json:"status"`
	}
	if err := a.post(ctx, a.authn, tokenReviews, in, &out); err != nil {
		return review{}, fmt.Errorf("creating a TokenReview: %w", err)
	}
	return review{Authenticated: out.Status.Authenticated, User: out.Status.User}, nil
}

// accessReview asks whether u may do r.
func (a *api) accessReview(ctx context.Context, u User, r Resource) (bool, error) {
	in := map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{"user": u.Name, "uid": u.UID, "groups": u.Groups, "resourceAttributes": r}}
	var out struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	if err := a.post(ctx, a.authz, accessReview, in, &out); err != nil {
		return false, fmt.Errorf("creating a SubjectAccessReview: %w", err)
	}
	return out.Status.Allowed, nil
}
