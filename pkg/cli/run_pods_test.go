package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/lab/platform/kube"
)

// TestRunPodsBadInput: --pods and its flags fail early with a clear
// message, before any cluster is contacted or any run written.
func TestRunPodsBadInput(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:1/"
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"fewer workers than pods", []string{"--pods", "3", "-c", "2", "-n", "10", url}, []string{"2 workers", "--pods 3"}},
		{"zero pods", []string{"--pods", "0", url}, []string{"pods", "at least 1"}},
		{"namespace without pods", []string{"--namespace", "load", url}, []string{"--namespace", "--pods"}},
		{"no image", []string{"--pods", "2", "--kubeconfig", "testdata/no-such-kubeconfig", url}, []string{"--image"}},
		{"registry without pods", []string{"--image-registry", "127.0.0.1:5000", url}, []string{"--image-registry", "--pods"}},
		{"registry and image", []string{"--pods", "2", "--image", "x/authbench:1", "--image-registry", "127.0.0.1:5000", url},
			[]string{"--image and --image-registry"}},
		{"registry user without registry", []string{"--pods", "2", "--image", "x/authbench:1", "--registry-user", "u", url},
			[]string{"--registry-user", "--image-registry"}},
		{"insecure non-loopback registry", []string{"--pods", "2", "--image-registry", "registry.example.com", "--insecure-registry", url},
			[]string{"loopback", "registry.example.com"}},
		{"bad pull secret", []string{"--pods", "2", "--image", "x/authbench:1", "--image-pull-secret", "Bad_Name", url},
			[]string{"--image-pull-secret", "Bad_Name"}},
		{"missing kubeconfig", []string{"--pods", "2", "--image", "x/authbench:1", "--kubeconfig", "testdata/no-such-kubeconfig", url},
			[]string{"kubeconfig", "no-such-kubeconfig"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, append([]string{"run", "--out", t.TempDir()}, tc.args...)...)
			if r.code != ExitError || r.stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", r.code, r.stdout, ExitError)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
		})
	}
}

// TestLabImageRecorded: the authbench image a kube lab recorded at lab up
// is used as it is when it is this binary's (same content hash): no
// build, no import (the cluster is not even touched).
func TestLabImageRecorded(t *testing.T) {
	ctx := context.Background()
	want, err := image.Ref(ctx, "authbench", image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec, _ := json.Marshal(map[string]string{"authbench": want})
	if err := os.WriteFile(filepath.Join(dir, kube.ImagesFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	got, err := labImage(ctx, nil, dir, &log)
	if err != nil || got != want {
		t.Fatalf("labImage = %q, %v; want the recorded %q", got, err, want)
	}
	if log.Len() != 0 {
		t.Errorf("it said %q; want nothing imported", log.String())
	}
}
