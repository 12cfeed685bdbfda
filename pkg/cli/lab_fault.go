package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
)

// bandwidthValue is --bandwidth: KB/s or MB/s, read by lab.ParseBandwidth.
type bandwidthValue struct{ kbps int64 }

func (b *bandwidthValue) String() string {
	if b.kbps == 0 {
		return ""
	}
	return fmt.Sprintf("%dKB/s", b.kbps)
}
func (b *bandwidthValue) Type() string { return "RATE" }
func (b *bandwidthValue) Set(s string) (err error) {
	b.kbps, err = lab.ParseBandwidth(s)
	return err
}

type labFaultOptions struct {
	dir       string
	delay     time.Duration
	jitter    time.Duration
	down      bool
	forD      time.Duration
	bandwidth bandwidthValue
	clear     bool
}

// newLabFaultCmd is `authbench lab fault`: a fault on one of the running
// lab's links, through its fault proxy.
func newLabFaultCmd() *cobra.Command {
	o := &labFaultOptions{}
	cmd := &cobra.Command{
		Use:   "fault LINK (--delay D [--jitter D] | --bandwidth R | --down) [--for D] | LINK --clear",
		Short: "Slow down, throttle or cut a link of the running lab (apiserver, keycloak, client)",
		Long: `Sets a fault on one link of the running lab through its fault proxy (Toxiproxy):
  apiserver  every auth component's connection to the kube-apiserver (TokenReview, SAR)
  keycloak   every connection to Keycloak (OIDC discovery, keys, token grants)
  client     authbench's connection to each stack's entry point (needs lab up --client-link
             or --client-rtt)
--delay D adds D to each round trip on the link (half each way; --jitter J varies it
uniformly by up to ±J), --bandwidth R limits each direction to R (KB/s or MB/s, e.g.
512KB/s), and --down refuses new connections and cuts open ones. A fault replaces the
link's previous one and lasts until --clear, or for --for D: the command then waits D,
clears the link and returns (Ctrl-C clears it at once). Each set and clear is logged
with its time in the lab's faults.jsonl, which runs copy into run.json;
` + "`lab status`" + ` lists the faults in force.`,
		Example: `  authbench lab fault apiserver --delay 200ms
  authbench lab fault apiserver --delay 200ms --jitter 50ms
  authbench lab fault apiserver --down --for 5s
  authbench lab fault keycloak --down
  authbench lab fault client --bandwidth 512KB/s
  authbench lab fault apiserver --clear`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	f := cmd.Flags()
	addLabSubDirFlag(cmd, &o.dir)
	f.DurationVar(&o.delay, "delay", 0, "add D to each round trip on the link (whole milliseconds)")
	f.DurationVar(&o.jitter, "jitter", 0, "vary the delay uniformly by up to ±D (at most --delay)")
	f.Var(&o.bandwidth, "bandwidth", "limit each direction of the link to RATE (KB/s or MB/s, e.g. 512KB/s)")
	f.BoolVar(&o.down, "down", false, "refuse new connections on the link and cut open ones")
	f.DurationVar(&o.forD, "for", 0, "hold the fault this long, then clear it (default: until --clear)")
	f.BoolVar(&o.clear, "clear", false, "remove every fault from the link")
	return cmd
}

func (o *labFaultOptions) run(cmd *cobra.Command, arg string) error {
	link, err := lab.ParseLink(arg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	l := openLab(o.dir)
	if o.clear {
		if o.delay != 0 || o.jitter != 0 || o.down || o.forD != 0 || o.bandwidth.kbps != 0 {
			return errors.New("--clear takes no other fault flag")
		}
		ev, err := l.ClearFault(cmd.Context(), link)
		if err != nil {
			return err
		}
		return printFaultEvent(out, ev, l.Dir())
	}
	f := lab.Fault{Link: link, Delay: o.delay, Jitter: o.jitter, Down: o.down, BandwidthKBps: o.bandwidth.kbps, For: o.forD}
	if err := f.Validate(); err != nil {
		return err
	}
	ev, err := l.HoldFault(cmd.Context(), f, func(set results.FaultEvent) {
		_ = printFaultEvent(out, set, l.Dir())
		if f.For > 0 {
			fmt.Fprintf(out, "holding it for %s (Ctrl-C clears it now)\n", f.For)
		}
	})
	if err != nil || f.For == 0 {
		return err
	}
	return printFaultEvent(out, ev, l.Dir())
}

// printFaultEvent says what took effect when, and where it is logged.
func printFaultEvent(w io.Writer, ev results.FaultEvent, dir string) error {
	what := "cleared"
	if ev.Action == results.FaultSet {
		what = "set: " + lab.FaultOf(ev).String()
	}
	_, err := fmt.Fprintf(w, "%s %s %s (logged in %s)\n", ev.At.Format("15:04:05.000"), ev.Link, what,
		strings.TrimPrefix(dir+"/"+lab.FaultLogFile, "./"))
	return err
}
