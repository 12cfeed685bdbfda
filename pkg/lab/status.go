package lab

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// WriteStatus prints a state for people: phase, each component with its
// role, program, version, pid, limit and URL, each stack's layers, notes.
func WriteStatus(w io.Writer, s *State) error {
	fmt.Fprintf(w, "lab %s: %s", s.Dir, s.Phase)
	if s.ReadyAt != nil && s.Phase == PhaseReady {
		fmt.Fprintf(w, " since %s (started in %.1fs)", s.ReadyAt.Format(time.DateTime), s.ReadyAt.Sub(s.Started).Seconds())
	}
	fmt.Fprintf(w, "; supervisor pid %d; stacks %s; cgroups %s\n", s.Supervisor, strings.Join(s.Stacks, ", "), s.Cgroups)
	if s.Error != "" {
		fmt.Fprintf(w, "error: %s\n", s.Error)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tSTACK\tROLE\tPROGRAM\tVERSION\tPID\tSTATUS\tLIMIT\tURL")
	for _, c := range s.Components {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", c.Name, c.Stack, c.Role, c.Program,
			dash(c.Version), c.PID, c.Status, dash(c.Limit), c.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a := s.Authz; a != nil {
		fmt.Fprintf(w, "\next_authz (the 3x gateways): timeout %s, failure mode %s\n", a.Timeout, a.FailureMode)
	}
	for _, t := range s.Targets {
		fmt.Fprintf(w, "\n%s (%s): %s\n", t.Name, stacks.Title(t.Stack), t.URL)
		for _, l := range t.Layers {
			fmt.Fprintf(w, "  %-22s %s\n", l.Layer, l.URL)
		}
	}
	writeLinks(w, s)
	if len(s.Notes) > 0 {
		fmt.Fprintln(w, "\nroles:")
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	_, err := fmt.Fprintf(w, "\nCA: %s   logs: %s/logs   scenario: authbench lab scenario --lab-dir %s\n", s.CACert, s.Dir, s.Dir)
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeLinks prints the fault proxy's links and the faults in force.
func writeLinks(w io.Writer, s *State) {
	if len(s.Links) == 0 {
		return
	}
	fmt.Fprintln(w, "\nlinks (fault proxy; `authbench lab fault LINK ...`):")
	for _, l := range s.Links {
		fault := "no fault"
		for _, f := range s.Faults {
			if f.Fault.Link == l.Name {
				fault = describeActive(f)
			}
		}
		var via []string
		for _, p := range l.Proxies {
			via = append(via, p.Listen+" -> "+p.Upstream)
		}
		fmt.Fprintf(w, "  %-10s %s  [%s]\n", l.Name, fault, strings.Join(via, ", "))
	}
	if s.FaultsError != "" {
		fmt.Fprintf(w, "  (faults unknown: %s)\n", s.FaultsError)
	}
}

// describeActive says what a fault in force does, since when and until when.
func describeActive(f ActiveFault) string {
	d := f.Fault
	d.For = 0
	out := "FAULT " + d.String()
	if f.Since != nil {
		out += " since " + f.Since.Format("15:04:05")
	}
	if f.Until != nil {
		out += " until " + f.Until.Format("15:04:05")
	}
	return out
}
