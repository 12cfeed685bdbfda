package analyze

// Fixtures for the external tests, which word comparisons with
// pkg/report (report imports analyze, so they cannot live inside it).
var (
	Seed2x           = seed2x
	Seed3x           = seed3x
	RerunRuns        = rerunRuns
	OneIterationRuns = oneIterationRuns
	WrkRuns          = wrkRuns
)
