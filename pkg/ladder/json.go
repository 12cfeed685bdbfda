package ladder

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/authbench/authbench/pkg/results"
)

// WriteJSON writes the ladder as `authbench ladder --output json` prints
// it: layers [{name, kind, added_ms {p50, p95, p99}, ci_ms, share,
// capacity_rps, ...}] from the client inwards, total_ms, unattributed_ms,
// the rungs, the gateway's timings and the notes.
func WriteJSON(w io.Writer, l *results.Ladder) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		return fmt.Errorf("writing ladder json: %w", err)
	}
	return nil
}
