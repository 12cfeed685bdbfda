package lab

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

func TestFaultValidate(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		f       Fault
		wantErr string
	}{
		{"delay", Fault{Link: "apiserver", Delay: 200 * ms}, ""},
		{"delay with jitter", Fault{Link: "keycloak", Delay: 200 * ms, Jitter: 20 * ms}, ""},
		{"jitter equal to delay", Fault{Link: "client", Delay: 20 * ms, Jitter: 20 * ms}, ""},
		{"down", Fault{Link: "apiserver", Down: true}, ""},
		{"down for", Fault{Link: "apiserver", Down: true, For: 5 * time.Second}, ""},
		{"delay for", Fault{Link: "apiserver", Delay: ms, For: time.Second}, ""},
		{"bandwidth", Fault{Link: "client", BandwidthKBps: 100}, ""},
		{"bandwidth and delay", Fault{Link: "client", BandwidthKBps: 100, Delay: 5 * ms}, ""},
		{"unknown link", Fault{Link: "etcd", Delay: ms}, `unknown link "etcd"`},
		{"nothing", Fault{Link: "apiserver"}, "no fault given"},
		{"for alone", Fault{Link: "apiserver", For: time.Second}, "no fault given"},
		{"negative delay", Fault{Link: "apiserver", Delay: -ms}, "--delay -1ms"},
		{"huge delay", Fault{Link: "apiserver", Delay: 2 * time.Minute}, "--delay 2m0s"},
		{"jitter above delay", Fault{Link: "apiserver", Delay: 10 * ms, Jitter: 11 * ms}, "larger than --delay"},
		{"jitter without delay", Fault{Link: "apiserver", Jitter: ms, BandwidthKBps: 1}, "needs --delay"},
		{"negative jitter", Fault{Link: "apiserver", Delay: ms, Jitter: -ms}, "--jitter -1ms"},
		{"sub-millisecond delay", Fault{Link: "apiserver", Delay: 1500 * time.Microsecond}, "whole milliseconds"},
		{"down with delay", Fault{Link: "apiserver", Down: true, Delay: ms}, "--down excludes"},
		{"down with bandwidth", Fault{Link: "apiserver", Down: true, BandwidthKBps: 1}, "--down excludes"},
		{"negative bandwidth", Fault{Link: "apiserver", BandwidthKBps: -1}, "--bandwidth -1KB/s"},
		{"negative for", Fault{Link: "apiserver", Down: true, For: -time.Second}, "--for -1s"},
		{"sub-millisecond for", Fault{Link: "apiserver", Down: true, For: time.Microsecond}, "--for 1µs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestFaultEvent(t *testing.T) {
	at := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	f := Fault{Link: "apiserver", Delay: 200 * time.Millisecond, Jitter: 20 * time.Millisecond, For: 5 * time.Second}
	want := results.FaultEvent{At: at, Link: "apiserver", Action: results.FaultSet, DelayMs: 200, JitterMs: 20, ForMs: 5000}
	if got := f.Event(at); got != want {
		t.Errorf("Event = %+v, want %+v", got, want)
	}
	if got, want := f.String(), "delay 200ms ± 20ms, for 5s"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestActiveFaultDatesFromLog(t *testing.T) {
	at := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	events := []results.FaultEvent{
		{At: at, Link: "apiserver", Action: results.FaultSet, Down: true, ForMs: 5000},
		{At: at.Add(time.Second), Link: "keycloak", Action: results.FaultSet, DelayMs: 10},
	}
	a := activeFault(Fault{Link: "apiserver", Down: true}, events)
	if a.Since == nil || !a.Since.Equal(at) || a.Until == nil || !a.Until.Equal(at.Add(5*time.Second)) || a.Fault.For != 5*time.Second {
		t.Errorf("activeFault = %+v, want since %s until +5s", a, at)
	}
	if b := activeFault(Fault{Link: "client", Delay: time.Millisecond}, events); b.Since != nil {
		t.Errorf("a link without events got since %s", b.Since)
	}
}

func TestParseLink(t *testing.T) {
	for _, s := range []string{"apiserver", " APIServer ", "keycloak", "client"} {
		if _, err := ParseLink(s); err != nil {
			t.Errorf("ParseLink(%q) = %v", s, err)
		}
	}
	if _, err := ParseLink("etcd"); err == nil || !strings.Contains(err.Error(), "apiserver, keycloak, client") {
		t.Errorf("ParseLink(etcd) = %v, want the known links", err)
	}
}

func TestParseBandwidth(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"512", 512, false},
		{"512KB/s", 512, false},
		{"512kb/s", 512, false},
		{"2MB/s", 2000, false},
		{" 3 MB/s ", 3000, false},
		{"0", 0, true},
		{"-5KB/s", 0, true},
		{"1.5MB/s", 0, true},
		{"fast", 0, true},
		{"99999999MB/s", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseBandwidth(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseBandwidth(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestFaultJSONRoundTrip(t *testing.T) {
	f := Fault{Link: "client", Delay: 45 * time.Millisecond, Jitter: 5 * time.Millisecond, BandwidthKBps: 512, For: time.Minute}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"link":"client","delay_ms":45,"jitter_ms":5,"bandwidth_kbps":512,"for_ms":60000}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back Fault
	if err := json.Unmarshal(b, &back); err != nil || back != f {
		t.Errorf("Unmarshal = %+v, %v; want %+v", back, err, f)
	}
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"512", "2MB/s", "1kb/s", "", "MB/s", "-1", "9223372036854775807MB/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBandwidth(s)
		if err == nil && (n <= 0 || n > MaxFaultBandwidthKBps) {
			t.Errorf("ParseBandwidth(%q) = %d: out of bounds", s, n)
		}
	})
}
