package loadgen_test

import (
	"os"

	"github.com/byomcp/byomcp/agentsvc/loadgen"
)

// WriteSummary prints the README's table from results; with two targets it adds how many
// times the first one is better.
func ExampleWriteSummary() {
	results := []*loadgen.Result{
		{Target: "byomcp", Scenario: loadgen.Scenario{Name: "idle"}, Held: 20000, MemPerSessionKiB: 60},
		{Target: "node-ref", Scenario: loadgen.Scenario{Name: "idle"}, Held: 20000, MemPerSessionKiB: 80},
	}
	_ = loadgen.WriteSummary(os.Stdout, results)
	// Output:
	// | figure | goal | byomcp | node-ref | byomcp vs node-ref |
	// | --- | --- | --- | --- | --- |
	// | idle sessions held by one process | ≥ 20,000 | 20,000 | 20,000 | same |
	// | memory per session after one turn | ≤ 24 KiB | 60.0 KiB | 80.0 KiB | 1.3× better |
}
