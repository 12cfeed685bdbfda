package pods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

// TestJobSeccomp: the Job's pod carries the seccomp profile asked for,
// and none when none is asked (the node's default then decides).
func TestJobSeccomp(t *testing.T) {
	tests := []struct {
		name string
		s    Seccomp
		want string // "": no securityContext at all
	}{
		{"none", Seccomp{}, ""},
		{"runtime default", Seccomp{Type: SeccompRuntimeDefault}, `"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}`},
		{"unconfined", Seccomp{Type: SeccompUnconfined}, `"securityContext":{"seccompProfile":{"type":"Unconfined"}}`},
		{"localhost", Seccomp{Type: SeccompLocalhost, Localhost: "authbench/no-uring.json"},
			`"securityContext":{"seccompProfile":{"localhostProfile":"authbench/no-uring.json","type":"Localhost"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Execution: plan.Execution{Pods: 2, Image: "authbench:test"}, Seccomp: tc.s}
			e := &Executor{o: o, id: "abcd", name: plan.MustObjectName("authbench-abcd")}
			b, err := json.Marshal(e.jobObject())
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if tc.want == "" && strings.Contains(s, "securityContext") || !strings.Contains(s, tc.want) {
				t.Errorf("job %s: want %s", s, tc.want)
			}
		})
	}
}

// TestSeccompCheck: profiles Kubernetes would refuse are refused before
// anything is created.
func TestSeccompCheck(t *testing.T) {
	tests := []struct {
		s  Seccomp
		ok bool
	}{
		{Seccomp{}, true},
		{Seccomp{Type: SeccompRuntimeDefault}, true},
		{Seccomp{Type: SeccompUnconfined}, true},
		{Seccomp{Type: SeccompLocalhost, Localhost: "profiles/no-uring.json"}, true},
		{Seccomp{Type: "runtime/default"}, false},
		{Seccomp{Type: SeccompLocalhost}, false},
		{Seccomp{Type: SeccompLocalhost, Localhost: "/etc/seccomp.json"}, false},
		{Seccomp{Type: SeccompLocalhost, Localhost: "../x.json"}, false},
		{Seccomp{Type: SeccompLocalhost, Localhost: "a//x.json"}, false},
		{Seccomp{Type: SeccompRuntimeDefault, Localhost: "x.json"}, false},
		{Seccomp{Localhost: "x.json"}, false},
	}
	for _, tc := range tests {
		if err := tc.s.check(); (err == nil) != tc.ok {
			t.Errorf("%+v: error %v, want ok %v", tc.s, err, tc.ok)
		}
	}
}

// TestMergeIOPath: the merged path is the pods' common one, and "mixed"
// as soon as one pod ran on another.
func TestMergeIOPath(t *testing.T) {
	tests := []struct {
		pods []string
		want string
	}{
		{[]string{"io_uring"}, "io_uring"},
		{[]string{"io_uring", "io_uring", "io_uring"}, "io_uring"},
		{[]string{"epoll", "epoll"}, "epoll"},
		{[]string{"io_uring", "epoll", "io_uring"}, "mixed"},
		{[]string{"epoll", "io_uring"}, "mixed"},
		{[]string{"epoll", "epoll", "netpoll"}, "mixed"},
	}
	for _, tc := range tests {
		got := ""
		for i, p := range tc.pods {
			got = mergeIOPath(got, p, i)
		}
		if got != tc.want {
			t.Errorf("%v: merged %q, want %q", tc.pods, got, tc.want)
		}
	}
}
