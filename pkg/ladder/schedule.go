package ladder

import "slices"

// Turn is one slot's turn in the schedule: Round is 1-based, Slot indexes
// the slots inside out (the end-to-end slot last).
type Turn struct {
	Round int
	Slot  int
}

// Schedule interleaves the slots: every slot once per round, so that a
// drift over the run (a warming cache, a noisy neighbour, a token
// refresh) lands on every rung alike instead of on one rung's block.
//
// The order inside a round follows a Williams design: over n rounds of
// n slots (2n when n is odd) every slot comes right after every other
// slot equally often. With one fixed order every slot had the same turn
// before it in every round, so what a turn inherits from that turn (a
// gateway warmed or left idle, a cache filled) was shared by every round
// and invisible to a bootstrap over rounds; balanced, it falls on every
// slot alike and widens the intervals instead of biasing them.
func Schedule(slots, rounds int) []Turn {
	out := make([]Turn, 0, max(slots*rounds, 0))
	for r := 1; r <= rounds; r++ {
		for _, s := range williamsRow(slots, r-1) {
			out = append(out, Turn{Round: r, Slot: s})
		}
	}
	return out
}

// williamsRow is row k of a Williams design for n treatments: the base
// sequence 0, 1, n-1, 2, n-2, … shifted by the row. For odd n the rows
// alternate with their mirror images, since n rows alone cannot balance
// the pairs; row 0 is the plain inside-out order's start (0, 1, …).
func williamsRow(n, k int) []int {
	row := make([]int, n)
	shift := k
	if n%2 == 1 {
		shift = k / 2
	}
	for j := range n {
		base := (j + 1) / 2
		if j%2 == 0 && j > 0 {
			base = n - j/2
		}
		row[j] = (base + shift) % n
	}
	if n%2 == 1 && k%2 == 1 {
		slices.Reverse(row)
	}
	return row
}
