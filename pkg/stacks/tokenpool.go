package stacks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The token pool: static tokens for users alice-1 ... alice-N, all in
// GroupTokenPool, which the echo RoleBinding allows like alice.
const (
	// GroupTokenPool is the pool users' group.
	GroupTokenPool = "authbench-pool"
	// TokenPoolFile is the pool's file under tokens/: one token per line.
	TokenPoolFile = "pool"
	// MaxTokenPool bounds --token-pool: the API server reads the whole
	// token file at start, and each user is a line of it.
	MaxTokenPool = 100000
)

// PoolUser is the name of the pool's i-th user (1-based).
func PoolUser(i int) string { return UserAlice + "-" + strconv.Itoa(i) }

// TokenPoolPath is the pool file of the lab in dir.
func TokenPoolPath(dir string) string { return SecretPaths(dir).TokenFile(TokenPoolFile) }

// EnsureTokenPool writes n pool tokens to the pool file (keeping the
// tokens already there, so a restart does not invalidate a scenario's
// pool) and appends their users to the API server's token-auth file; n = 0
// removes the pool. Runs after EnsureSecrets, which rewrites the token-auth
// file from scratch.
func EnsureTokenPool(s Secrets, n int) error {
	path := s.TokenFile(TokenPoolFile)
	if n == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the token pool: %w", err)
		}
		return nil
	}
	toks := readPoolTokens(path)
	if len(toks) > n {
		toks = toks[:n]
	}
	for len(toks) < n {
		toks = append(toks, openshiftToken())
	}
	if err := writeFileAtomic(path, []byte(strings.Join(toks, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing the token pool: %w", err)
	}
	var csv strings.Builder
	for i, tok := range toks {
		u := PoolUser(i + 1)
		fmt.Fprintf(&csv, "%s,%s,%s,\"authbench-users,%s\"\n", tok, u, u, GroupTokenPool)
	}
	f, err := os.OpenFile(s.TokenAuthFile, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("adding the token pool to %s: %w", filepath.Base(s.TokenAuthFile), err)
	}
	if _, err := f.WriteString(csv.String()); err != nil {
		f.Close()
		return fmt.Errorf("adding the token pool to %s: %w", filepath.Base(s.TokenAuthFile), err)
	}
	return f.Close()
}

// readPoolTokens returns the pool file's well-formed tokens (none when it
// is missing).
func readPoolTokens(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "sha256~") && !strings.ContainsAny(l, ",\" ") {
			out = append(out, l)
		}
	}
	return out
}
