//go:build race

package planner

// raceDetector: this test binary was built with -race. The planner is pure text work (its one
// shared value is the schema cache), which the race detector slows about seventeen times, so
// under it the conversation tables run a sample (sampled); test.sh runs the whole tables again
// without it.
const raceDetector = true
