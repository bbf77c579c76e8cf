package loadgen

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// Suite returns the scenarios behind the README's performance table; scale (0 < scale ≤ 1)
// shrinks their sessions and durations for a quick run.
//
//   - idle: 20,000 sessions, one turn each, then 30 s idle (past a keep-alive ping): sessions
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
//   - realistic: 1,000 realistic pages (the demo's four pages and their captured tools, a
//     quarter each), three turns each of one or two tool calls and a 300-600 character
//     answer, paced as visitors chat (the first turns spread over 30 s, then 5-15 s to read
//     an answer and type the next message), then 30 s idle (past a keep-alive ping), on the SQLite store: memory per tab,
//     heap/stack split, turn latency with the model's time taken out.
//   - realistic-memory: the same on the memory store.
//   - provider: 200 realistic pages turning at once in a closed loop for 20 s, against the
//     fake model behind HTTPS with HTTP/1.1 keep-alive: new connections and TLS handshakes
//     per 1,000 model calls.
//   - burst: 300 realistic pages, 50 starting at once (each new one when one has had its
//     three turns), against bench/slow-model.py (Python's http.server, HTTP/1.0, a listen
//     queue of 5): failed model connects and turn latency p99 (model included).
func Suite(scale float64) []Scenario {
	if scale <= 0 || scale > 1 {
		scale = 1
	}
	n := func(v int) int { return max(1, int(float64(v)*scale)) }
	d := func(v time.Duration) time.Duration { return max(time.Second, time.Duration(float64(v)*scale)) }
	return []Scenario{
		{Name: "idle", Sessions: n(20000), Hold: d(30 * time.Second)},
		{Name: "one", Sessions: 1, Rate: 20, Duration: d(20 * time.Second), ToolsPerTurn: 1},
		{Name: "steady", Sessions: n(1000), Rate: 0.2, Duration: d(30 * time.Second), ToolsPerTurn: 5},
		{Name: "turns", Sessions: n(1000), Rate: 1, Duration: d(30 * time.Second), ToolsPerTurn: 1},
		{Name: "hundred", Sessions: n(100), Rate: 2, Duration: d(20 * time.Second), ToolsPerTurn: 1},
		{Name: "saturation", Sessions: n(200), Duration: d(20 * time.Second), ToolsPerTurn: 20, RenewEvery: 1},
		{Name: "realistic", Sessions: n(1000), Pages: PagesDemo, Turns: 3, Spread: d(30 * time.Second), Think: d(10 * time.Second), Hold: d(30 * time.Second), Store: "sqlite"},
		{Name: "realistic-memory", Sessions: n(1000), Pages: PagesDemo, Turns: 3, Spread: d(30 * time.Second), Think: d(10 * time.Second), Hold: d(30 * time.Second), Store: "memory"},
		{Name: "provider", Sessions: n(200), Pages: PagesDemo, Turns: 3, Concurrency: 200, Duration: d(20 * time.Second), Model: ModelTLS},
		{Name: "burst", Sessions: n(300), Pages: PagesDemo, Turns: 3, Concurrency: 50, Model: ModelPython},
	}
}

// Spec says how to get a target for each scenario: spawn Command afresh, call Start, or
// attach to URL.
type Spec struct {
	Name string
	// Command is spawned with the fake model in OPENAI_BASE_URL; an argument "{store}" is
	// replaced by the scenario's store ("memory", or "sqlite:" and a fresh file).
	Command []string
	// Start starts an agent that uses the model m (its URL, and ClientTLS for an HTTPS one)
	// on the store named by the scenario, and returns its URL, the process to measure and
	// how to stop it (used to run the agent inside the generator, to profile).
	Start func(ctx context.Context, m *Model, store string) (url string, pid int, stop func(), err error)
	URL   string // an agent already running (then PID, if known, for its memory)
	PID   int
}

// Bench runs scenarios against one or more targets, with the fake model each scenario asks
// for (started once, shared by the targets).
type Bench struct {
	Targets   []Spec
	Scenarios []Scenario
	Options   Options
	// Python is the command of the Python model (default "python3 bench/slow-model.py").
	Python []string
}

// Run runs every scenario against every target, scenario by scenario (so that the targets
// of one scenario meet the same machine), each spawned target afresh. It returns the
// results in that order; a scenario that fails is reported and the others still run.
func (b Bench) Run(ctx context.Context) ([]*Result, error) {
	if err := RaiseFileLimit(); err != nil {
		fmt.Fprintf(b.Options.withDefaults().Progress, "loadgen: raising the open-file limit: %v\n", err)
	}
	b.Scenarios = fitFileLimit(b.Scenarios, b.Options.withDefaults().Progress)
	models := map[string]*Model{}
	defer func() {
		for _, m := range models {
			m.Close()
		}
	}()
	var results []*Result
	var failed []string
	for _, sc := range b.Scenarios {
		m := models[sc.Model]
		if m == nil {
			var err error
			if m, err = StartModelKind(ctx, sc.Model, b.Python); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", sc.Name, err))
				fmt.Fprintf(b.Options.withDefaults().Progress, "%s: failed: %v\n", sc.Name, err)
				continue
			}
			models[sc.Model] = m
		}
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
	// The generator starts each run as clean as its first: the last run's pages (19,600 of
	// them after idle) collected and their memory returned, so that collecting them does not
	// take the cores from the next run's agent.
	debug.FreeOSMemory()
	var t *Target
	switch {
	case len(spec.Command) > 0:
		argv, cleanup, err := withStore(spec.Command, sc.Store)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		if t, err = Spawn(ctx, spec.Name, argv, m.URL, m.Env()...); err != nil {
			return nil, err
		}
		defer t.Stop()
	case spec.Start != nil:
		url, pid, stop, err := spec.Start(ctx, m, sc.Store)
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

// withStore replaces a "{store}" argument by the store: "memory", or "sqlite:" and a file
// in a fresh directory that cleanup removes.
func withStore(argv []string, store string) (out []string, cleanup func(), err error) {
	cleanup = func() {}
	value := "memory"
	switch store {
	case "", "memory":
	case "sqlite":
		dir, err := os.MkdirTemp("", "byomcp-bench-store-")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		value = "sqlite:" + filepath.Join(dir, "bench.db")
	default:
		return nil, nil, fmt.Errorf("loadgen: unknown store %q", store)
	}
	for _, a := range argv {
		out = append(out, strings.ReplaceAll(a, "{store}", value))
	}
	return out, cleanup, nil
}

// RaiseFileLimit raises the limit of open files (each page is a socket, on both ends) to
// wantFiles when the process may raise its hard limit (root, CAP_SYS_RESOURCE), else the
// soft limit to the hard one; processes started afterwards inherit it.
func RaiseFileLimit() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Max < wantFiles {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: wantFiles, Max: wantFiles}); err == nil {
			return nil
		}
	}
	if l.Cur >= l.Max {
		return nil
	}
	l.Cur = l.Max
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}

// filesReserve is what a process keeps of its open-file limit besides the pages' sockets:
// the model's connections, the store's files, the listener, the runtime's own.
const filesReserve = 400

// fitFileLimit lowers the sessions of a scenario that needs more sockets than the open-file
// limit allows (each process, the agent and the generator, holds one per page), and says so.
func fitFileLimit(scs []Scenario, progress io.Writer) []Scenario {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur <= filesReserve {
		return scs
	}
	most := int(min(l.Cur-filesReserve, uint64(1<<30)))
	out := make([]Scenario, len(scs))
	for i, sc := range scs {
		if sc.Sessions > most {
			fmt.Fprintf(progress, "%s: %d sessions need more open files than the limit of %d allows (it cannot be raised here): running %d\n",
				sc.Name, sc.Sessions, l.Cur, most)
			sc.Sessions = most
		}
		out[i] = sc
	}
	return out
}

// wantFiles is the open-file limit the bench asks for: the idle scenario's 20,000 sockets,
// and the rest of a process's files, with room.
const wantFiles = 65536
