// Package oauthtest holds the integration tests of the lab's 3x-oauth
// stack (OpenShift OAuth tokens through TokenReview) across the packages
// it touches: the stack's answers, the API server's review counts with one
// token and with a token pool, the comparison and ladder against 3x, and what the fault findings say of a slow or absent API server. It has no code of its own; its
// tests start their own lab and need the `integration` build tag.
package oauthtest
