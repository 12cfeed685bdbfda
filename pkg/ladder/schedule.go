package ladder

// Turn is one slot's turn in the schedule: Round is 1-based, Slot indexes
// the slots inside out (the end-to-end slot last).
type Turn struct {
	Round int
	Slot  int
}

// Schedule interleaves the slots: every slot once in order, round after
// round (A B C D A B C D …), so that a drift over the run (a warming cache,
// a noisy neighbour, a token refresh) lands on every rung alike instead of
// on one rung's block.
func Schedule(slots, rounds int) []Turn {
	out := make([]Turn, 0, max(slots*rounds, 0))
	for r := 1; r <= rounds; r++ {
		for s := range slots {
			out = append(out, Turn{Round: r, Slot: s})
		}
	}
	return out
}
