package load

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
)

func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name, header string
		want         answer
	}{
		{"authz error", "x-authbench-gateway-details: ext_authz_error", answerAuthzError},
		{"denied", "X-Authbench-Gateway-Details:  ext_authz_denied ", answerAuthzDenied},
		{"other local reply", "X-Authbench-Gateway-Details: no_healthy_upstream", answerOther},
		{"none", "X-Other: ext_authz_error", answerNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "HTTP/1.1 403 Forbidden\r\n" + tt.header + "\r\ncontent-length: 0\r\n\r\n"
			status, a, keep, err := readAnswer(bufio.NewReader(strings.NewReader(raw)), false)
			if err != nil || status != 403 || !keep || a != tt.want {
				t.Errorf("= %d %d %v %v, want 403 %d", status, a, keep, err, tt.want)
			}
			if s, got := splitAnswer(withAnswer(status, a)); s != 403 || got != tt.want {
				t.Errorf("packed: %d %d", s, got)
			}
		})
	}
}

// TestAttackCountsAnswers runs the engine against a server answering as
// the lab's Envoy does, on both clients, and checks the result's classes.
func TestAttackCountsAnswers(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 4 {
		case 1:
			w.Header().Set(GatewayDetailsHeader, string(detailsAuthzError))
			w.WriteHeader(http.StatusForbidden)
		case 2:
			w.Header().Set(GatewayDetailsHeader, string(detailsAuthzDenied))
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	defer srv.Close()
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			n.Store(0)
			_, res := runAttack(t, attacker(t, plan.Client{}, c.opts...), Request{URL: srv.URL}, Spec{Requests: 40, Concurrency: 1})
			if res.Status["403"] != 20 || res.Answers[AnswerAuthzError] != 10 || res.Answers[AnswerAuthzDenied] != 10 {
				t.Errorf("status %v answers %v, want 20 x 403: 10 authz errors, 10 denials", res.Status, res.Answers)
			}
			if got := fmt.Sprint(len(res.Answers)); got != "2" {
				t.Errorf("classes %v", res.Answers)
			}
		})
	}
}
