package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/authbench/authbench/pkg/kube/manifests"
)

// Delete deletes objs in reverse order, skipping what the stacks share
// (the Namespace, the serving Secret, alice's and bob's ServiceAccounts)
// and objects already gone. It deletes only what a stack made: each
// object is read first and deleted only when it carries the stack label
// it was built with, under a precondition on the uid read, so that an
// object of the same name that something else owns is left alone. Those
// are named in the error, after the rest are deleted.
func Delete(ctx context.Context, c *Client, objs []manifests.Object) error {
	var foreign []string
	for i := len(objs) - 1; i >= 0; i-- {
		obj := objs[i]
		if manifests.IsShared(obj) {
			continue
		}
		owned, err := deleteOwned(ctx, c, obj)
		if err != nil {
			return fmt.Errorf("deleting %s %s: %w", manifests.Kind(obj), manifests.Name(obj), err)
		}
		if !owned {
			foreign = append(foreign, manifests.Kind(obj)+" "+manifests.Name(obj))
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("left alone, not labelled as the stack's own (%s): %s", manifests.LabelStack, strings.Join(foreign, ", "))
	}
	return nil
}

// live is what Delete reads of an object.
type live struct {
	Metadata struct {
		UID    string            `json:"uid"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
}

// deleteOwned deletes obj if the cluster's object of its name carries
// obj's stack label; false when it does not. A gone object counts as
// deleted.
func deleteOwned(ctx context.Context, c *Client, obj manifests.Object) (bool, error) {
	want := stackLabel(obj)
	if want == "" {
		return false, fmt.Errorf("refusing: the object has no %s label to recognise it by", manifests.LabelStack)
	}
	p, err := Path(obj, manifests.Name(obj))
	if err != nil {
		return false, err
	}
	code, b, err := c.Do(ctx, http.MethodGet, p, "", nil)
	switch {
	case err != nil:
		return false, err
	case code == http.StatusNotFound:
		return true, nil
	case code/100 != 2:
		return false, fmt.Errorf("%d %s", code, status(b))
	}
	var l live
	if err := json.Unmarshal(b, &l); err != nil {
		return false, fmt.Errorf("reading it: %w", err)
	}
	if l.Metadata.Labels[manifests.LabelStack] != want || l.Metadata.UID == "" {
		return false, nil
	}
	opts, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "DeleteOptions",
		"propagationPolicy": "Foreground", "preconditions": map[string]string{"uid": l.Metadata.UID}})
	code, b, err = c.Do(ctx, http.MethodDelete, p, "application/json", bytes.NewReader(opts))
	if err == nil && code/100 != 2 && code != http.StatusNotFound {
		err = fmt.Errorf("%d %s", code, status(b))
	}
	return err == nil, err
}

// stackLabel is obj's value of the stack label, as built.
func stackLabel(obj manifests.Object) string {
	md, _ := obj["metadata"].(manifests.Object)
	labels, _ := md["labels"].(manifests.Object)
	s, _ := labels[manifests.LabelStack].(string)
	return s
}
