package frontend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// Wait bounds how long a gateway may take to load new endpoints (Within)
// and how often its admin interface is asked meanwhile (Every): each
// platform chooses, as a pod may be slower to see its files than a process.
type Wait struct {
	Within, Every time.Duration
}

// WaitEndpoints waits until the Envoy whose admin /clusters is at url lists
// exactly gw's endpoints: written files are not yet loaded ones, and the
// replicas going away must not be dropped while Envoy still routes to them.
func WaitEndpoints(ctx context.Context, c *http.Client, url string, gw stacks.Gateway, w Wait) error {
	want := map[string]int{}
	for _, ce := range gw.EDSFiles(0) {
		want[ce.Cluster] = len(ce.Endpoints)
	}
	ctx, cancel := context.WithTimeout(ctx, w.Within)
	defer cancel()
	for {
		got, err := clusterHosts(ctx, c, url)
		if err == nil && sameCounts(got, want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not load its new endpoints within %s (has %v, want %v; %v)", gw.Name, w.Within, got, want, err)
		case <-time.After(w.Every):
		}
	}
}

// clusterHosts reads Envoy's admin /clusters text and counts its hosts.
func clusterHosts(ctx context.Context, c *http.Client, url string) (map[string]int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	return ParseClusters(body), nil
}

// ParseClusters counts the distinct hosts of each cluster in Envoy's admin
// /clusters text ("CLUSTER::HOST:PORT::STAT::VALUE" lines); lines of a
// cluster's own settings (no HOST:PORT field) and anything else are
// skipped, as the text is another program's and may grow new lines.
func ParseClusters(body []byte) map[string]int {
	hosts := map[string]map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		parts := strings.Split(line, "::")
		if len(parts) < 3 || !strings.Contains(parts[1], ":") {
			continue
		}
		if hosts[parts[0]] == nil {
			hosts[parts[0]] = map[string]bool{}
		}
		hosts[parts[0]][parts[1]] = true
	}
	out := map[string]int{}
	for c, hs := range hosts {
		out[c] = len(hs)
	}
	return out
}

// sameCounts says whether got has want's count for each of want's
// clusters; other clusters (the admin's own, say) do not matter.
func sameCounts(got, want map[string]int) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
