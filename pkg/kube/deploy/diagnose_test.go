package deploy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/kube/manifests"
)

// TestWaitSaysWhy: a Deployment that never becomes available fails the
// wait with what its pods say (here, an image that cannot be pulled), not
// only "context deadline exceeded".
func TestWaitSaysWhy(t *testing.T) {
	tests := []struct {
		name string
		pods string
		want []string
	}{
		{"image not pulled", `{"items":[
			{"metadata":{"name":"http-echo-2x-5d9c-abcde"},"status":{"phase":"Pending",
			 "conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady","message":"containers with unready status: [echo]"}],
			 "containerStatuses":[{"name":"echo","ready":false,"state":{"waiting":{"reason":"ErrImagePull","message":"not found"}}}]}},
			{"metadata":{"name":"other-1"},"status":{"phase":"Running"}}]}`,
			[]string{"Deployment authbench/http-echo-2x (pod http-echo-2x-5d9c-abcde Pending", "container echo waiting: ErrImagePull not found",
				"context deadline exceeded"}},
		{"crash loop", `{"items":[{"metadata":{"name":"http-echo-2x-1"},"status":{"phase":"Running",
			 "containerStatuses":[{"name":"echo","restartCount":4,"state":{"terminated":{"reason":"Error","exitCode":2}}}]}}]}`,
			[]string{"container echo terminated: Error (exit 2)", "4 restarts"}},
		{"no pod", `{"items":[]}`, []string{"(no pod was created)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/pods") {
					w.Write([]byte(tt.pods))
					return
				}
				w.Write([]byte(`{"metadata":{"generation":1},"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":1}}`))
			}))
			defer srv.Close()
			c := &Client{Server: srv.URL, HTTP: srv.Client()}
			obj := manifests.Object{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": "http-echo-2x", "namespace": "authbench"}}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := WaitAvailable(ctx, c, []manifests.Object{obj})
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to hold %q", err, w)
				}
			}
		})
	}
}
