// Package standin is authbench's own small servers for the auth components
// no registry here serves: openshift/oauth-proxy (2x's sidecar) and
// kube-auth-proxy (3x-oauth's ext_authz service). Each reproduces what the
// real one does per request, written from that behaviour (not from its
// code): which Kubernetes API calls it makes (TokenReview, and for
// oauth-proxy a SubjectAccessReview), what it caches and for how long, the
// client-side token bucket its API client waits on, and which status it
// answers for a missing or invalid token and a forbidden user. The
// behaviours are the catalog's (stacks.Behaviour); `authbench lab standin`
// runs one, on either platform.
package standin
