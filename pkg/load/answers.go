package load

import (
	"bytes"
	"strings"
)

// GatewayDetailsHeader is the header the lab's Envoy adds to every response
// it makes itself, holding Envoy's response code details: the only way a
// client can tell the 403 Envoy sends when its ext_authz call failed or
// timed out from the auth service's own denial. It is the lab's header
// (stacks.GatewayDetailsHeader, which a test keeps equal); the engine
// cannot import the lab's catalog.
const GatewayDetailsHeader = "X-Authbench-Gateway-Details"

// Classes of the responses a gateway made itself (results.Result.Answers
// keys), from GatewayDetailsHeader. Such a response is also counted under
// its status; the class says who decided it.
const (
	// AnswerAuthzError: the gateway's ext_authz call failed or timed out
	// and the gateway answered (403 by default): not the auth service's
	// decision.
	AnswerAuthzError = "gateway-authz-error"
	// AnswerAuthzDenied: the auth service answered and denied; the
	// gateway passed its status back.
	AnswerAuthzDenied = "gateway-authz-denied"
	// AnswerGatewayOther: any other response the gateway made itself (no
	// healthy upstream, an upstream reset or timeout).
	AnswerGatewayOther = "gateway-other"
)

// answer is a response's class as the engine carries it: 0 for a
// response the gateway did not mark.
type answer uint8

const (
	answerNone answer = iota
	answerAuthzError
	answerAuthzDenied
	answerOther
)

// answerNames are the classes' names, by answer.
var answerNames = [...]string{"", AnswerAuthzError, AnswerAuthzDenied, AnswerGatewayOther}

// Envoy's response code details of its ext_authz filter's own answers.
var (
	detailsAuthzError  = []byte("ext_authz_error")
	detailsAuthzDenied = []byte("ext_authz_denied")
)

// answerOf classes a GatewayDetailsHeader value.
func answerOf(v []byte) answer {
	switch {
	case bytes.Equal(v, detailsAuthzError):
		return answerAuthzError
	case bytes.Equal(v, detailsAuthzDenied):
		return answerAuthzDenied
	case len(v) == 0:
		return answerNone
	}
	return answerOther
}

// answerShift places a response's class above its status in the one int
// a doer returns, so that the hot path carries it without a new return
// value; statuses are three digits.
const answerShift = 16

// withAnswer packs a class with a status.
func withAnswer(status int, a answer) int { return status | int(a)<<answerShift }

// splitAnswer unpacks what withAnswer packed.
func splitAnswer(packed int) (int, answer) {
	return packed & (1<<answerShift - 1), answer(packed >> answerShift)
}

var gatewayDetailsLower = strings.ToLower(GatewayDetailsHeader)
