package processes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/authbench/authbench/pkg/stacks"
)

// applyRBAC creates the RBAC objects with plain JSON POSTs as the admin; an
// object that exists already is fine.
func applyRBAC(ctx context.Context, c *http.Client, api, adminTokenFile string) error {
	tok, err := stacks.ReadSecret(adminTokenFile)
	if err != nil {
		return err
	}
	for _, o := range stacks.RBACObjects() {
		if err := postObject(ctx, c, api+o.Path, tok, o.Body); err != nil {
			return fmt.Errorf("creating RBAC objects: %w", err)
		}
	}
	return nil
}

func postObject(ctx context.Context, c *http.Client, url, token string, obj map[string]any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
		return nil
	}
	return fmt.Errorf("POST %s (%s): status %d: %s", url, obj["kind"], resp.StatusCode, bytes.TrimSpace(msg))
}
