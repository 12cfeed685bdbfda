package live

import (
	"fmt"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// wide is the width from which a frame shows bars and memory.
const wide = 120

// Render lays a snapshot out in at most height-1 lines of at most width
// columns (the last row stays free for the cursor). The run's figures
// come first; components and pods take the rows left, the rest counted.
func Render(s Snapshot, width, height int) []string {
	head := header(s, width)
	if s.Phase != "" {
		head = append(head, rateLine(s))
		head = append(head, latencyLines(s)...)
		head = append(head, errorLine(s))
	}
	head = append(head, runLine(s))
	budget := max(height-1, 1) - len(head)
	tail := componentLines(s, width, budget)
	tail = append(tail, podLines(s, budget-len(tail))...)
	out := append(head, tail...)
	if len(out) > max(height-1, 1) {
		out = out[:max(height-1, 1)]
	}
	for i := range out {
		out[i] = strings.TrimRight(cut(out[i], width-1), " ")
	}
	return out
}

func header(s Snapshot, width int) []string {
	title := "authbench " + s.Title
	switch {
	case s.Stopping:
		return []string{title + ": stopping; the requests in flight finish, then the run is written (Ctrl-C again exits at once)"}
	case s.Phase == "" && s.PhasesDone == 0:
		return []string{title + ": starting (probes, idle sampling, warm-up)"}
	case s.Phase == "":
		return []string{title + ": between phases"}
	}
	when := s.Elapsed.Truncate(time.Second).String()
	switch {
	case s.Duration > 0:
		when += " of " + s.Duration.String()
	case s.Total > 0:
		when += fmt.Sprintf(", %s of %s requests", count(s.Done), count(s.Total))
	}
	l := fmt.Sprintf("%s: %s  %s", title, s.Phase, when)
	if hint := "  (Ctrl-C stops, keeps the run)"; len(l)+len(hint) < width {
		l += hint
	}
	return []string{l}
}

func rateLine(s Snapshot) string {
	l := fmt.Sprintf("%-13s %s req/s", "rate", rate(s.Rate))
	if s.Target > 0 {
		l += fmt.Sprintf(" of %s target (%.1f%%)", rate(s.Target), 100*s.Rate/s.Target)
	} else {
		l += fmt.Sprintf(", closed loop of %d workers", s.Workers)
	}
	return l + fmt.Sprintf("  last %s; %s requests", secs(s.Window), count(s.Done))
}

func latencyLines(s Snapshot) []string {
	out := []string{
		fmt.Sprintf("%-13s %-19s %s", "latency", "last "+secs(s.Window), s.SoFarLabel),
		fmt.Sprintf("%-13s %-9s %-9s %-9s %s", "", "P50", "P99", "P50", "P99"),
	}
	name := "requests" // the closed loop's latency is from the send
	if s.Target > 0 {
		name = "corrected"
	}
	out = append(out, fmt.Sprintf("%-13s %-9s %-9s %-9s %s", name,
		msText(s.Recent.N, s.Recent.P50), msText(s.Recent.N, s.Recent.P99), msText(s.SoFar.N, s.SoFar.P50), msText(s.SoFar.N, s.SoFar.P99)))
	if s.Target > 0 {
		out = append(out, fmt.Sprintf("%-13s %-9s %-9s %-9s %s", "uncorrected",
			uText(s.Recent, s.Recent.UP50), uText(s.Recent, s.Recent.UP99), uText(s.SoFar, s.SoFar.UP50), uText(s.SoFar, s.SoFar.UP99)))
	}
	return out
}

func errorLine(s Snapshot) string {
	l := fmt.Sprintf("%-13s %s in the last %s; %s so far", "errors", percent(s.RecentErrors, s.RecentRequests), secs(s.Window), count(s.Errors))
	if len(s.Classes) == 0 {
		return l
	}
	parts := make([]string, len(s.Classes))
	for i, c := range s.Classes {
		parts[i] = fmt.Sprintf("%s %s", c.Class, count(c.N))
	}
	return l + ": " + strings.Join(parts, ", ")
}

func runLine(s Snapshot) string {
	return fmt.Sprintf("%-13s %s requests, %s errors in all; %ss over: %d", "run", count(s.RunRequests), count(s.RunErrors), s.PhaseWord, s.PhasesDone)
}

// componentLines are the components' CPU against their limits, in at
// most budget lines.
func componentLines(s Snapshot, width, budget int) []string {
	if len(s.Components) == 0 || budget < 2 {
		return nil
	}
	col := 13
	for _, c := range s.Components {
		col = max(col, min(len(c.Name), maxName)+2)
	}
	note := "cores, last " + secs(s.Window)
	if s.ComponentsNote != "" {
		note = "cores " + s.ComponentsNote
	}
	out := []string{fmt.Sprintf("%-*s %6s  %-6s %-9s  %s", col, "components", "CPU", "limit", "throttled", note)}
	for i, c := range s.Components {
		if len(out) == budget-1 && i < len(s.Components)-1 {
			out = append(out, fmt.Sprintf("  ... %d more", len(s.Components)-i))
			break
		}
		out = append(out, componentLine(c, col, width))
	}
	return out
}

// maxName is the widest component name shown whole.
const maxName = 24

func componentLine(c results.ComponentUsage, col, width int) string {
	limit, thr := "-", "-"
	if c.CPULimit > 0 {
		limit, thr = fmt.Sprintf("%.2f", c.CPULimit), fmt.Sprintf("%.1f%%", 100*c.ThrottledRatio)
	}
	l := fmt.Sprintf("  %-*s %6.2f  %-6s %-9s", col-2, cut(c.Name, maxName), c.CPUMean, limit, thr)
	if width >= wide {
		l += fmt.Sprintf("  mem %-9s %s", mib(c.MemMean), bar(c.CPUMean, c.CPULimit, min(width-len(l)-18, 52)))
	}
	return l
}

// podLines are the pods' shares of the window, in at most budget lines.
func podLines(s Snapshot, budget int) []string {
	if len(s.Pods) == 0 || budget < 2 {
		return nil
	}
	out := []string{fmt.Sprintf("%-13s %-9s %s", "pods", "req/s", "share of the last "+secs(s.Window))}
	for i, p := range s.Pods {
		if len(out) == budget-1 && i < len(s.Pods)-1 {
			out = append(out, fmt.Sprintf("  ... %d more", len(s.Pods)-i))
			break
		}
		out = append(out, fmt.Sprintf("  pod %-7d %-9s %.1f%%", p.Pod, rate(p.Rate), 100*p.Share))
	}
	return out
}

// bar draws used against limit in n columns; without a limit, nothing.
func bar(used, limit float64, n int) string {
	if limit <= 0 || n < 4 {
		return ""
	}
	n -= 2
	k := min(int(used/limit*float64(n)+0.5), n)
	return "[" + strings.Repeat("=", max(k, 0)) + strings.Repeat(" ", n-max(k, 0)) + "]"
}

func msText(n int64, v float64) string {
	if n == 0 {
		return "-"
	}
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	}
	return fmt.Sprintf("%.2fms", v)
}

func uText(l Latency, v float64) string {
	if !l.HasU {
		return "-"
	}
	return msText(l.N, v)
}

func percent(n, of int64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(of))
}

func rate(r float64) string {
	if r >= 100 {
		return count(int64(r + 0.5))
	}
	return fmt.Sprintf("%.1f", r)
}

func secs(d time.Duration) string { return d.Round(time.Second).String() }

func mib(b float64) string { return fmt.Sprintf("%.0f MiB", b/(1<<20)) }

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
