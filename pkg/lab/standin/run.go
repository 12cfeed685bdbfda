package standin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
)

// Client is the stand-in's API client: its kubeconfig's identity, or the
// pod's ServiceAccount. Like client-go's, it multiplexes its reviews over
// HTTP/2.
func Client(c Config) (*kubeapi.Client, error) {
	var cl *kubeapi.Client
	var err error
	if c.Kubeconfig != "" {
		cl, err = kubeapi.FromKubeconfig(c.Kubeconfig)
	} else {
		cl, err = kubeapi.InCluster("")
	}
	if err != nil {
		return nil, err
	}
	if t, ok := cl.HTTP.Transport.(*http.Transport); ok {
		t.ForceAttemptHTTP2 = true
		t.MaxIdleConnsPerHost = 64
	}
	return cl, nil
}

// Run serves the stand-in of c until ctx ends.
func Run(ctx context.Context, c Config, log io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	cl, err := Client(c)
	if err != nil {
		return fmt.Errorf("stand-in %s: %w", c.Mode, err)
	}
	h, err := New(c, cl)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("stand-in %s: listening: %w", c.Mode, err)
	}
	b, _ := c.Behaviour()
	fmt.Fprintf(log, "stand-in %s listening on https://%s: %s\n", c.Mode, c.Listen, b.Describe())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 90 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(ln, c.CertFile, c.KeyFile) }()
	select {
	case err := <-done:
		return fmt.Errorf("stand-in %s: serving: %w", c.Mode, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
