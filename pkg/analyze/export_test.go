package analyze

// Fixtures for the external tests, which word comparisons with
// pkg/report (report imports analyze, so they cannot live inside it).
var (
	Reported2x       = reported2x
	Reported3x       = reported3x
	RerunRuns        = rerunRuns
	OneIterationRuns = oneIterationRuns
	WrkRuns          = wrkRuns
)
