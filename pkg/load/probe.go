package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"

	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
)

// probeBodyMax bounds how much of a probe's body is hashed.
const probeBodyMax = 64 << 20

// Probe sends r once through net/http to fingerprint the backend: status,
// Server header and the hex SHA-256 of the body. A failure is recorded in
// the fingerprint's Error, never returned. Target is left to the caller.
func (a *Attacker) Probe(ctx context.Context, r Request) results.TargetFingerprint {
	fp := results.TargetFingerprint{URL: r.URL}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var secrets []string // what this request carries, never to be recorded
	for name, vs := range r.Header {
		for _, v := range vs {
			secrets = append(secrets, redact.HeaderSecrets(name, v)...)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		fp.Error = redact.Text(err.Error(), secrets...)
		return fp
	}
	req.Header = r.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if req.Header.Get("User-Agent") == "" && a.userAgent != "" {
		req.Header.Set("User-Agent", a.userAgent)
	}
	req.Host = r.Host
	if req.Host == "" {
		req.Host = req.Header.Get("Host")
	}
	if r.Token != nil {
		tok, err := r.Token.Token(ctx)
		if err != nil {
			fp.Error = (&tokenError{err}).Error()
			return fp
		}
		if !validValue(tok) {
			fp.Error = errBadToken.Error()
			return fp
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		secrets = append(secrets, tok)
	}
	res, err := a.std.Do(req)
	if err != nil {
		// net/http quotes the whole URL, query token and all.
		fp.Error = redact.Text(err.Error(), secrets...)
		return fp
	}
	defer res.Body.Close()
	// A server may echo what it received in its Server header.
	fp.Status, fp.Server = res.StatusCode, redact.Text(res.Header.Get("Server"), secrets...)
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(res.Body, probeBodyMax)); err != nil {
		fp.Error = "reading probe body: " + redact.Text(err.Error(), secrets...)
		return fp
	}
	fp.BodySHA256 = hex.EncodeToString(h.Sum(nil))
	return fp
}
