// Package frontend points the layers in front of a scaled component at its
// current replicas, live, the same way on every lab platform: a gateway's
// Envoy takes new endpoints files without a restart (WaitEndpoints waits
// until its admin interface lists them), the route's HAProxy fills its
// server-template slots through its runtime API (Reslot).
package frontend
