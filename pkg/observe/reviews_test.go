package observe

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
)

const metricsText = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="authentication.k8s.io",resource="tokenreviews",scope="resource",subresource="",verb="POST",version="v1"} %d
apiserver_request_total{code="201",component="apiserver",dry_run="",group="authorization.k8s.io",resource="subjectaccessreviews",scope="resource",subresource="",verb="POST",version="v1"} %d
apiserver_request_total{code="400",component="apiserver",dry_run="",group="authorization.k8s.io",resource="subjectaccessreviews",scope="resource",subresource="",verb="POST",version="v1"} 1
apiserver_request_total{code="201",component="apiserver",dry_run="",group="authorization.k8s.io",resource="selfsubjectaccessreviews",scope="resource",subresource="",verb="POST",version="v1"} 50
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 7
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="authentication.k8s.io",resource="tokenreviews",scope="resource",subresource="",verb="POST",version="v1"} %g
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="authentication.k8s.io",resource="tokenreviews",scope="resource",subresource="",verb="POST",version="v1"} 3
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="authorization.k8s.io",resource="subjectaccessreviews",scope="resource",subresource="",verb="POST",version="v1"} 0.002
`

func TestParseReviewMetrics(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[ReviewKey]ReviewCount
		wantErr string
	}{
		{"counts and seconds", fmt.Sprintf(metricsText, 3, 2, 0.006), map[ReviewKey]ReviewCount{
			{Resource: ResourceTokenReviews}: {N: 3, Seconds: 0.006},
			{Resource: ResourceSARs}:         {N: 3, Seconds: 0.002}}, ""},
		{"no review yet", "apiserver_request_total{resource=\"pods\",verb=\"GET\"} 4\n", map[ReviewKey]ReviewCount{}, ""},
		{"escaped label", `apiserver_request_total{x="a\"b\\",resource="tokenreviews",verb="create"} 2` + "\n",
			map[ReviewKey]ReviewCount{{Resource: ResourceTokenReviews}: {N: 2}}, ""},
		{"bad value", `apiserver_request_total{resource="tokenreviews",verb="POST"} many` + "\n", nil, "line 1: metric apiserver_request_total: bad value"},
		{"unterminated", `apiserver_request_total{resource="tokenreviews} 1` + "\n", nil, "line 1: label resource: unterminated value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReviewMetrics(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// MetricsReviews against a server answering like the API server, with the
// bearer token it requires.
func TestMetricsReviewsWindow(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Header.Get("Authorization") != "Bearer admin-tok" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		calls++
		fmt.Fprintf(w, metricsText, 10*calls, 20*calls, 0.01*float64(calls))
	}))
	defer srv.Close()
	tok, err := auth.New(t.Context(), &auth.Spec{Static: true, Literal: "admin-tok"})
	if err != nil {
		t.Fatal(err)
	}
	m := &MetricsReviews{URL: srv.URL, Token: tok}
	before, err := m.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	after, err := m.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := ReviewWindow(m.Source(), before, after, 5)
	if got.Source != "metrics" || got.TokenReviews != 10 || got.SubjectAccessReviews != 20 ||
		got.TokenReviewsPerRequest != 2 || got.SARsPerRequest != 4 {
		t.Errorf("window = %+v, want 10 TokenReviews (2/request) and 20 SARs (4/request)", got)
	}
	if !near(got.TokenReviewMeanMs, 1, 1e-9) || !near(got.ReviewMsPerRequest, 2, 1e-9) {
		t.Errorf("TokenReviewMeanMs = %v, ReviewMsPerRequest = %v; want 1 and 2", got.TokenReviewMeanMs, got.ReviewMsPerRequest)
	}
	if _, err := (&MetricsReviews{URL: srv.URL}).Read(t.Context()); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("without the token: error = %v, want the 403", err)
	}
}

func auditLine(stage, verb, user, resource string, ms int) string {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":%q,"verb":%q,`+
		`"user":{"username":%q},"objectRef":{"resource":%q,"apiGroup":"authentication.k8s.io"},`+
		`"requestReceivedTimestamp":%q,"stageTimestamp":%q}`+"\n",
		stage, verb, user, resource, t0.Format(time.RFC3339Nano), t0.Add(time.Duration(ms)*time.Millisecond).Format(time.RFC3339Nano))
}

// The audit log is read incrementally, a partial last line waits for the
// next read, and a rotated log is read from its start.
func TestAuditReviews(t *testing.T) {
	const sa1, sa2 = "system:serviceaccount:authbench:ext", "system:serviceaccount:authbench:sidecar"
	path := filepath.Join(t.TempDir(), "audit.log")
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(auditLine("ResponseComplete", "create", sa1, "tokenreviews", 2) + "not json\n")
	a := NewAuditReviews(path)
	before, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	full := auditLine("ResponseComplete", "create", sa2, "subjectaccessreviews", 1)
	appendTo(auditLine("ResponseComplete", "create", sa1, "tokenreviews", 4) +
		auditLine("ResponseComplete", "create", sa1, "tokenreviews", 2) +
		auditLine("ResponseComplete", "get", sa1, "tokenreviews", 2) +
		auditLine("Panic", "create", sa1, "tokenreviews", 2) +
		auditLine("ResponseComplete", "create", sa2, "tokenreviews", 2) +
		full[:40])
	mid, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	appendTo(full[40:])
	after, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w := ReviewWindow(a.Source(), before, mid, 2)
	if w.TokenReviews != 3 || w.SubjectAccessReviews != 0 {
		t.Errorf("before the partial line is complete: %+v, want 3 TokenReviews and no SAR", w)
	}
	w = ReviewWindow(a.Source(), before, after, 2)
	if w.TokenReviews != 3 || w.SubjectAccessReviews != 1 || len(w.Callers) != 2 {
		t.Fatalf("window = %+v, want 3 TokenReviews, 1 SAR, 2 callers", w)
	}
	if c := w.Callers[0]; c.Caller != sa1 || c.TokenReviews != 2 || !near(c.ReviewMsPerRequest, 3, 1e-9) {
		t.Errorf("caller %+v, want %s with 2 TokenReviews and 3 ms per request", c, sa1)
	}
	if c := w.Callers[1]; c.Caller != sa2 || c.TokenReviews != 1 || c.SubjectAccessReviews != 1 {
		t.Errorf("caller %+v, want %s with 1 TokenReview and 1 SAR", c, sa2)
	}
	// Rotation: a new, shorter file is read from its start.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	appendTo(auditLine("ResponseComplete", "create", sa1, "tokenreviews", 1))
	rotated, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if w := ReviewWindow(a.Source(), after, rotated, 1); w.TokenReviews != 1 {
		t.Errorf("after rotation: %d TokenReviews, want 1", w.TokenReviews)
	}
}

func TestReviewWindowMissingReading(t *testing.T) {
	if w := ReviewWindow(ReviewSourceAudit, ReviewTally{}, ReviewTally{Time: time.Now()}, 1); w != nil {
		t.Errorf("ReviewWindow without a first reading = %+v, want nil", w)
	}
}

// The label parser against the format's escaping of arbitrary values.
func FuzzParseSample(f *testing.F) {
	for _, s := range []string{`a"b`, `back\slash`, "new\nline", "", "}{,="} {
		f.Add(s, 1.5)
	}
	f.Fuzz(func(t *testing.T, val string, v float64) {
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(val)
		line := fmt.Sprintf(`m{resource=%q,x="%s"} %v`, "tokenreviews", esc, v)
		line = strings.Replace(line, fmt.Sprintf("%q", "tokenreviews"), `"tokenreviews"`, 1)
		s, err := parseSample(line)
		if err != nil {
			t.Fatalf("parseSample(%q): %v", line, err)
		}
		if s.labels["x"] != val || s.labels["resource"] != "tokenreviews" {
			t.Fatalf("parseSample(%q) labels = %q, want x=%q", line, s.labels, val)
		}
		if s.value != v && !(v != v && s.value != s.value) {
			t.Fatalf("parseSample(%q) value = %v, want %v", line, s.value, v)
		}
	})
}

// Arbitrary bytes in the exposition or the audit log never panic.
func FuzzReviewParsers(f *testing.F) {
	f.Add(fmt.Sprintf(metricsText, 1, 2, 0.5))
	f.Add(auditLine("ResponseComplete", "create", "u", "tokenreviews", 1))
	f.Add(`apiserver_request_total{resource="tokenreviews",verb="POST"` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = parseReviewMetrics(strings.NewReader(in))
		for _, l := range strings.Split(in, "\n") {
			if k, c, ok := parseAuditLine([]byte(l)); ok && (c.N != 1 || c.Seconds < 0 || k.Resource == "") {
				t.Fatalf("parseAuditLine(%q) = %v %v", l, k, c)
			}
		}
	})
}
