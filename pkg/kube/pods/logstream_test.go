package pods

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/plan"
)

// stubAPI serves a pod's log as a list of streams, one per open, and the
// pod's status as a list of answers, one per GET (the last repeats).
type stubAPI struct {
	mu       sync.Mutex
	streams  []string
	statuses []string
	opened   []string // the paths of the opened streams
}

func (s *stubAPI) Stream(_ context.Context, path kubeapi.URLPath) (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.opened) >= len(s.streams) {
		return nil, errors.New("no more streams")
	}
	s.opened = append(s.opened, path.String())
	return io.NopCloser(strings.NewReader(s.streams[len(s.opened)-1])), nil
}

func (s *stubAPI) Do(context.Context, string, kubeapi.URLPath, string, io.Reader) (int, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.statuses[0]
	if len(s.statuses) > 1 {
		s.statuses = s.statuses[1:]
	}
	return 200, []byte(st), nil
}

const (
	podRunning   = `{"status":{"phase":"Running","containerStatuses":[{"state":{"running":{}}}]}}`
	podSucceeded = `{"status":{"phase":"Succeeded","containerStatuses":[{"state":{"terminated":{"exitCode":0}}}]}}`
	podDeleted   = `{"metadata":{"deletionTimestamp":"2026-11-24T10:00:09Z"},"status":{"phase":"Running","containerStatuses":[{"state":{"running":{}}}]}}`
)

// logLine is an agent line as the kubelet serves it with timestamps=true.
func logLine(ts string, seq int) string {
	return fmt.Sprintf("2026-11-24T10:00:%sZ {\"kind\":\"interval\",\"seq\":%d}\n", ts, seq)
}

// followAll runs follow over the stub and returns the seqs of the events
// it sent and whether it ended with gone.
func followAll(t *testing.T, api *stubAPI) ([]int, bool) {
	t.Helper()
	e := &Executor{o: Options{Execution: plan.Execution{Namespace: plan.MustNamespace("ns")}, Log: io.Discard}, api: api, events: make(chan event, 100)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e.follow(ctx, 0, "p")
	close(e.events)
	var seqs []int
	gone := false
	for ev := range e.events {
		switch {
		case ev.gone:
			gone = true
		case ev.text != "":
			t.Errorf("unexpected text event %q", ev.text)
		default:
			seqs = append(seqs, ev.line.Seq)
		}
	}
	return seqs, gone
}

func TestFollowReconnects(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streams   []string
		statuses  []string
		want      []int
		opens     int
		sinceTime []string // of each reopened stream
	}{
		{
			name: "dropped stream reopened at the last second, repeats skipped",
			streams: []string{
				logLine("01.100000000", 1) + logLine("02.100000000", 2) + logLine("02.100000000", 3),
				// from sinceTime 10:00:02: two lines already seen, then new ones
				logLine("02.100000000", 2) + logLine("02.100000000", 3) + logLine("02.100000000", 4) + logLine("03.500000000", 5),
				"", // the container exited: nothing new
			},
			statuses:  []string{podRunning, podSucceeded},
			want:      []int{1, 2, 3, 4, 5},
			opens:     2,
			sinceTime: []string{"2026-11-24T10:00:02Z"},
		},
		{
			name:     "stream of a deleted pod is not reopened",
			streams:  []string{logLine("01.000000000", 1) + logLine("02.000000000", 2), logLine("03.000000000", 3)},
			statuses: []string{podDeleted},
			want:     []int{1, 2},
			opens:    1,
		},
		{
			name:     "a pod that keeps dropping with nothing new ends",
			streams:  []string{logLine("01.000000000", 1), "", "", "", "", "", "", "", "", "", "", "", "", ""},
			statuses: []string{podRunning},
			want:     []int{1},
			opens:    1 + maxDrops, // the first, then maxDrops reopened in vain
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &stubAPI{streams: tc.streams, statuses: tc.statuses}
			seqs, gone := followAll(t, api)
			if fmt.Sprint(seqs) != fmt.Sprint(tc.want) {
				t.Errorf("lines %v, want %v", seqs, tc.want)
			}
			if !gone {
				t.Error("the pod was not reported gone at the end")
			}
			if len(api.opened) != tc.opens {
				t.Errorf("streams opened %d, want %d: %q", len(api.opened), tc.opens, api.opened)
			}
			for i, want := range tc.sinceTime {
				u, _ := url.Parse(api.opened[i+1])
				if got := u.Query().Get("sinceTime"); got != want {
					t.Errorf("reopened stream %d: sinceTime %q, want %q", i+1, got, want)
				}
			}
			if u, _ := url.Parse(api.opened[0]); u.Query().Get("sinceTime") != "" || u.Query().Get("timestamps") != "true" {
				t.Errorf("first stream %q: want timestamps and no sinceTime", api.opened[0])
			}
		})
	}
}
