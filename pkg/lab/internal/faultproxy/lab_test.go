package faultproxy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
)

func TestLinkProxies(t *testing.T) {
	api := lab.LinkInfo{Name: results.LinkAPIServer, Proxies: []lab.FaultProxy{{Name: "a"}, {Name: "b"}}}
	tests := []struct {
		name  string
		links []lab.LinkInfo
		link  string
		want  []string
		says  string
	}{
		{"link found", []lab.LinkInfo{api}, results.LinkAPIServer, []string{"a", "b"}, ""},
		{"no client link", []lab.LinkInfo{api}, results.LinkClient, nil, "started without the client link"},
		{"no keycloak", []lab.LinkInfo{api}, results.LinkKeycloak, nil, "runs no Keycloak"},
		{"no fault proxy at all", nil, results.LinkKeycloak, nil, "older authbench"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &lab.State{Links: tc.links, Ports: map[string]int{}}
			_, names, err := LinkProxies(s, tc.link, "kube lab")
			if tc.says == "" {
				if err != nil || !slices.Equal(names, tc.want) {
					t.Errorf("LinkProxies = %v, %v; want %v", names, err, tc.want)
				}
				return
			}
			if !errors.Is(err, lab.ErrNoFaultProxy) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "kube lab") {
				t.Errorf("LinkProxies error %v, want lab.ErrNoFaultProxy saying %q of the kube lab", err, tc.says)
			}
		})
	}
}
