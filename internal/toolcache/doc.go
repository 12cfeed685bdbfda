// Package toolcache puts everything the local lab needs on this machine:
// Debian packages (haproxy, nginx, etcd, hey, wrk, prometheus, Java, Maven,
// optionally chromium), pinned Go tools built from the module proxy through
// one throw-away wrapper module each, and Keycloak from Maven Central.
//
// Everything lands in a cache outside the repo (CacheDir), keyed by name and
// version: CacheDir()/tools/NAME-VERSION/bin/NAME. Install is idempotent: a
// tool whose stamp matches its recipe is reported as cached without running
// anything, so a warm run takes well under a second or two.
package toolcache
