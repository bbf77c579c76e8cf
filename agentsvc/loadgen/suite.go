package loadgen

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Suite returns the scenarios behind the README's performance table; scale (0 < scale ≤ 1)
// shrinks their sessions and durations for a quick run.
//
//   - idle: 10,000 sessions, one turn each, then 30 s idle (past a keep-alive ping): sessions
//     held, memory and goroutines per session.
//   - one: 1 session, 20 turns/s for 20 s, one tool call per turn: the tools/call round trip
//     and the agent overhead at one session.
//   - steady: 1,000 sessions × 1 tool call/s for 30 s, as one turn every 5 s with 5 parallel
//     calls (1,000 tool calls/s, 400 model calls/s).
//   - turns: 1,000 sessions × 1 turn/s with one tool call each for 30 s (1,000 tool calls/s,
//     2,000 model calls/s): how many turns per second the agent keeps up with.
//   - hundred: 100 sessions × 2 turns/s for 20 s: the agent overhead at 100 sessions.
//   - saturation: 200 sessions in a closed loop, 20 parallel tool calls per turn, a new
//     conversation every turn (so the model requests stay small), 20 s.
func Suite(scale float64) []Scenario {
	if scale <= 0 || scale > 1 {
		scale = 1
	}
	n := func(v int) int { return max(1, int(float64(v)*scale)) }
	d := func(v time.Duration) time.Duration { return max(time.Second, time.Duration(float64(v)*scale)) }
	return []Scenario{
		{Name: "idle", Sessions: n(10000), Hold: d(30 * time.Second)},
		{Name: "one", Sessions: 1, Rate: 20, Duration: d(20 * time.Second), ToolsPerTurn: 1},
		{Name: "steady", Sessions: n(1000), Rate: 0.2, Duration: d(30 * time.Second), ToolsPerTurn: 5},
		{Name: "turns", Sessions: n(1000), Rate: 1, Duration: d(30 * time.Second), ToolsPerTurn: 1},
		{Name: "hundred", Sessions: n(100), Rate: 2, Duration: d(20 * time.Second), ToolsPerTurn: 1},
		{Name: "saturation", Sessions: n(200), Duration: d(20 * time.Second), ToolsPerTurn: 20, RenewEvery: 1},
	}
}

// Spec says how to get a target for each scenario: spawn Command afresh, call Start, or
// attach to URL.
type Spec struct {
	Name    string
	Command []string // spawned with the fake model in OPENAI_BASE_URL
	// Start starts an agent that uses the model at modelURL and returns its URL, the process
	// to measure and how to stop it (used to run the agent inside the generator, to profile).
	Start func(ctx context.Context, modelURL string) (url string, pid int, stop func(), err error)
	URL   string // an agent already running (then PID, if known, for its memory)
	PID   int
}

// Bench runs scenarios against one or more targets with one fake model.
type Bench struct {
	Targets   []Spec
	Scenarios []Scenario
	Options   Options
}

// Run runs every scenario against every target, scenario by scenario (so that the targets
// of one scenario meet the same machine), each spawned target afresh. It returns the
// results in that order; a scenario that fails is reported and the others still run.
func (b Bench) Run(ctx context.Context) ([]*Result, error) {
	if err := RaiseFileLimit(); err != nil {
		fmt.Fprintf(b.Options.withDefaults().Progress, "loadgen: raising the open-file limit: %v\n", err)
	}
	m, err := StartModel()
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var results []*Result
	var failed []string
	for _, sc := range b.Scenarios {
		for _, spec := range b.Targets {
			if ctx.Err() != nil {
				return results, ctx.Err()
			}
			res, err := runOne(ctx, spec, m, sc, b.Options)
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s %s: %v", spec.Name, sc.Name, err))
				fmt.Fprintf(b.Options.withDefaults().Progress, "%s %s: failed: %v\n", spec.Name, sc.Name, err)
			}
			if res != nil {
				results = append(results, res)
			}
		}
	}
	if len(failed) > 0 {
		return results, fmt.Errorf("loadgen: %s", strings.Join(failed, "; "))
	}
	return results, nil
}

func runOne(ctx context.Context, spec Spec, m *Model, sc Scenario, o Options) (*Result, error) {
	var t *Target
	switch {
	case len(spec.Command) > 0:
		var err error
		if t, err = Spawn(ctx, spec.Name, spec.Command, m.URL); err != nil {
			return nil, err
		}
		defer t.Stop()
	case spec.Start != nil:
		url, pid, stop, err := spec.Start(ctx, m.URL)
		if err != nil {
			return nil, err
		}
		defer stop()
		t = Attach(spec.Name, url, pid)
	default:
		t = Attach(spec.Name, spec.URL, spec.PID)
	}
	res, err := Run(ctx, t, m, sc, o)
	if err == nil && t.Exited() {
		err = fmt.Errorf("the target exited during the run: %s", t.stderr)
	}
	return res, err
}

// RaiseFileLimit raises the soft limit of open files to the hard one (each page is a
// socket); processes started afterwards inherit it.
func RaiseFileLimit() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur >= l.Max {
		return nil
	}
	l.Cur = l.Max
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}
