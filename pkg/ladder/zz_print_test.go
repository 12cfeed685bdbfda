package ladder
import ("context";"os";"testing";"github.com/authbench/authbench/pkg/report")
func TestPrintChain(t *testing.T){
	c := newChain(t)
	out, err := Run(context.Background(), chainOptions(c))
	if err != nil { t.Fatal(err) }
	report.LadderText(os.Stdout, out.Ladder, "")
	for _, r := range out.Ladder.Rungs { t.Logf("%s %+v cap %.0f", r.Layer, r.LatencyMs, r.CapacityRPS) }
}
func TestPrintRounds(t *testing.T){
	c := newChain(t)
	out, err := Run(context.Background(), chainOptions(c))
	if err != nil { t.Fatal(err) }
	for _, r := range out.Run.Results { t.Logf("%-20s %d p50 %.2f p95 %.2f p99 %.2f max %.2f late %d n %d", r.Target, r.Iteration, r.Latency.P50, r.Latency.P95, r.Latency.P99, r.Latency.Max, *r.LateSends, r.Requests) }
}
