// Package deploy applies the stacks' objects (pkg/kube/manifests) to a
// cluster with server-side apply over the raw REST API (content type
// application/apply-patch+yaml, a field manager of its own, force), so a
// second apply changes nothing; and deletes them.
package deploy
