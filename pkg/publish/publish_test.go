package publish

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/store"
)

var day0 = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

func TestDocuments(t *testing.T) {
	dir := fixtureRun(t, t.TempDir(), "nightly", day0, 20, "api", "login")
	docs, err := Documents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 {
		t.Fatalf("%d documents, want 2 targets x 2 iterations", len(docs))
	}
	ids := map[string]bool{}
	for _, d := range docs {
		ids[d.ID] = true
		if d.ID != DocID(d.RunID, d.Target, d.Iteration) {
			t.Errorf("id %s is not DocID of its run, target and iteration", d.ID)
		}
		if d.Histogram == "" || d.HistogramPerMs != 1000 {
			t.Errorf("%s/%d: histogram %d chars, %g per ms", d.Target, d.Iteration, len(d.Histogram), d.HistogramPerMs)
		}
		if d.Environment.BackendServer != "nginx" || d.Model != "closed" || d.Concurrency != 10 || d.Iterations != 2 {
			t.Errorf("metadata: %+v", d)
		}
		if len(d.SLO) != 1 || d.SLO[0].Target != d.Target || d.SLOPass == nil || !*d.SLOPass || len(d.Findings) != 1 {
			t.Errorf("%s: SLO %+v findings %+v", d.Target, d.SLO, d.Findings)
		}
		if len(d.Figures.Components) != 1 || d.Figures.Components[0].Samples != nil {
			t.Errorf("components should be kept without samples: %+v", d.Figures.Components)
		}
		if !json.Valid(d.Plan) || !strings.Contains(string(d.Plan), "127.0.0.1") {
			t.Errorf("plan: %s", d.Plan)
		}
	}
	if len(ids) != 4 {
		t.Errorf("ids not distinct: %v", ids)
	}
	again, err := Documents(dir)
	if err != nil || again[0].ID != docs[0].ID {
		t.Errorf("ids not deterministic: %v", err)
	}
}

// TestMergeHistogramsExact checks that merging documents equals recording
// every value into one histogram: the .hlog's own intervals merged.
func TestMergeHistogramsExact(t *testing.T) {
	runs := t.TempDir()
	a := fixtureRun(t, runs, "a", day0, 10, "api")
	b := fixtureRun(t, runs, "b", day0.Add(time.Hour), 30, "api")
	var docs []Document
	want := hdrhistogram.New(1, 60_000_000, 3)
	for _, dir := range []string{a, b} {
		d, err := Documents(dir)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d...)
		for _, x := range d {
			h, err := store.ReadHistogramLog(filepath.Join(dir, store.HistogramFileName(x.Target, x.Iteration)))
			if err != nil {
				t.Fatal(err)
			}
			want.Merge(h)
		}
	}
	m, err := MergeHistograms(docs)
	if err != nil {
		t.Fatal(err)
	}
	if !m.H.Equals(want) {
		t.Fatalf("merged histogram differs: %d values (p99 %d) vs %d (p99 %d)", m.H.TotalCount(), m.H.ValueAtQuantile(99), want.TotalCount(), want.ValueAtQuantile(99))
	}
	if m.H.TotalCount() != 4*600 {
		t.Errorf("count %d, want %d", m.H.TotalCount(), 4*600)
	}
	if l := m.Latency(); l.P50 <= 10 || l.P50 >= 30 {
		t.Errorf("merged p50 %.2f ms should lie between the runs' medians", l.P50)
	}
	docs[1].Histogram = ""
	if _, err := MergeHistograms(docs); !errors.Is(err, ErrNoHistogram) {
		t.Errorf("merging a document without histogram: %v", err)
	}
}

func TestHistogramRoundTrip(t *testing.T) {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	for v := int64(1); v < 10_000_000; v = v*3 + 1 {
		must(t, h.RecordValue(v))
	}
	s, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeHistogram(s)
	if err != nil || !back.Equals(h) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := DecodeHistogram("not base64!"); err == nil {
		t.Error("garbage decoded")
	}
}

func FuzzDecodeHistogram(f *testing.F) {
	h := hdrhistogram.New(1, 1000, 2)
	must(f, h.RecordValue(42))
	s, _ := EncodeHistogram(h)
	f.Add(s)
	f.Add("HISTFAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		if h, err := DecodeHistogram(s); err == nil && h == nil {
			t.Error("nil histogram without error")
		}
	})
}

func TestHistoryPoints(t *testing.T) {
	runs := t.TempDir()
	var docs []Document
	for i, ms := range []float64{10, 12} {
		d, err := Documents(fixtureRun(t, runs, "nightly", day0.Add(time.Duration(i)*24*time.Hour), ms, "api", "login"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d...)
	}
	sortDocuments(docs)
	pts := HistoryPoints(docs)
	local, err := LocalHistory(runs, store.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(local) {
		t.Fatalf("%d points from documents, %d from the local index", len(pts), len(local))
	}
	for i := range pts {
		p, l := pts[i].Row, local[i].Row
		if p.RunID != l.RunID || p.Target != l.Target || p.Requests != l.Requests || p.Iterations != l.Iterations {
			t.Errorf("row %d: %+v vs local %+v", i, p, l)
		}
		for _, pair := range [][2]*float64{{p.P95Merged, l.P95Merged}, {p.P50, l.P50}, {p.P99Merged, l.P99Merged}} {
			if pair[0] == nil || pair[1] == nil || *pair[0] != *pair[1] {
				t.Errorf("row %d: percentiles differ from the local index", i)
			}
		}
		if p.Throughput != l.Throughput || p.SuccessRate != l.SuccessRate {
			t.Errorf("row %d: throughput %g/%g success %g/%g", i, p.Throughput, l.Throughput, p.SuccessRate, l.SuccessRate)
		}
		if pts[i].Fingerprint == nil || local[i].Fingerprint == nil || pts[i].Fingerprint.Server != local[i].Fingerprint.Server {
			t.Errorf("row %d: fingerprints %+v vs %+v", i, pts[i].Fingerprint, local[i].Fingerprint)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"ok", Config{URL: "https://127.0.0.1:9200"}, ""},
		{"no scheme", Config{URL: "127.0.0.1:9200"}, "want http(s)"},
		{"credentials in url", Config{URL: "http://u:secret@127.0.0.1:9200"}, "no credentials in the URL"},
		{"bad index", Config{URL: "http://127.0.0.1:9200", Index: "Runs"}, "lowercase"},
		{"user and token", Config{URL: "http://127.0.0.1:9200", User: "u", Token: &auth.Spec{Env: "X"}}, "not both"},
		{"password file alone", Config{URL: "http://127.0.0.1:9200", PasswordFile: "/p"}, "without --opensearch-user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error quotes the password: %v", err)
			}
		})
	}
}

func TestCountBulk(t *testing.T) {
	tests := []struct {
		name, body      string
		created, exists int
		err             string
	}{
		{"created and existing", `{"items":[{"create":{"_id":"a","status":201}},{"create":{"_id":"b","status":409}}]}`, 1, 1, ""},
		{"failure", `{"items":[{"create":{"_id":"a","status":400,"error":{"type":"mapper_parsing_exception","reason":"bad"}}}]}`, 0, 0, "mapper_parsing_exception"},
		{"garbage", `<html>`, 0, 0, "decoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := countBulk([]byte(tt.body))
			if res.Created != tt.created || res.Existing != tt.exists {
				t.Errorf("got %+v", res)
			}
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("err %v, want %q", err, tt.err)
			}
		})
	}
}

func TestWithEnv(t *testing.T) {
	t.Setenv(EnvURL, "http://127.0.0.1:9200")
	t.Setenv(EnvIndex, "team")
	c := Config{Index: "mine"}.WithEnv()
	if c.URL != "http://127.0.0.1:9200" || c.Index != "mine" || !c.Enabled() {
		t.Errorf("got %+v", c)
	}
}

// FuzzCountBulk feeds arbitrary server answers to the bulk reader: it
// must count or fail, never panic, and never count more than it was told.
func FuzzCountBulk(f *testing.F) {
	f.Add(`{"items":[{"create":{"_id":"a","status":201}},{"create":{"_id":"b","status":409}}]}`)
	f.Add(`{"items":[{"create":{"_id":"a","status":400,"error":{"type":"x","reason":"y"}}}]}`)
	f.Add(`{"items":null}`)
	f.Fuzz(func(t *testing.T, body string) {
		res, err := countBulk([]byte(body))
		var probe struct{ Items []map[string]json.RawMessage }
		if json.Unmarshal([]byte(body), &probe) != nil && err == nil {
			t.Errorf("accepted what encoding/json rejects: %q", body)
		}
		if err == nil && res.Created+res.Existing > len(probe.Items)*len(body) {
			t.Errorf("counted %+v from %q", res, body)
		}
	})
}
