package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/byomcp/byomcp/agentsvc"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/loadgen"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// runBench is `byomcp bench`: the load generator (agentsvc/loadgen). By default it runs the
// whole suite against a fresh `byomcp serve --store memory` per scenario (this binary) and
// prints the README's table; --compare adds a second target, e.g. the Node reference agent.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("bench", flag.ContinueOnError)
	fset.SetOutput(stderr)
	scenarios := fset.String("scenarios", strings.Join(suiteNames, ","), "comma-separated scenarios of the suite to run")
	scale := fset.Float64("scale", 1, "shrink the suite's sessions and durations by this factor (0 < scale ≤ 1) for a quick run")
	sessions := fset.Int("sessions", 0, "run one custom scenario with this many sessions instead of the suite")
	rate := fset.Float64("rate", 1, "custom scenario: turns per second per session (0: closed loop)")
	duration := fset.Duration("duration", 10*time.Second, "custom scenario: length of the load phase (0: first turns only)")
	tools := fset.Int("tools", 1, "custom scenario: tool calls per turn")
	hold := fset.Duration("hold", 0, "custom scenario: idle time after the first turns, before measuring memory")
	renew := fset.Int("renew", 10, "custom scenario: turns per conversation (a page then starts a new one)")
	self, _ := os.Executable()
	cmd := fset.String("cmd", self+" serve --addr 127.0.0.1:0 --store {store} --log-level warn", "command that starts the agent under test (it gets OPENAI_BASE_URL) and prints its URL first; {store} is replaced by the scenario's store (memory, or sqlite:FILE)")
	python := fset.String("python", "python3 bench/slow-model.py", "command of the Python model server of the burst scenario (run from the repository root)")
	name := fset.String("name", "byomcp", "name of the agent under test in the reports")
	server := fset.String("server", "", "URL of an agent already running (instead of --cmd); it must use the model that bench prints")
	pid := fset.Int("pid", 0, "with --server: its process id, to measure its memory")
	compare := fset.String("compare", "", `command of a second agent to run every scenario against, e.g. "node bench/ref-agent.mjs"`)
	compareName := fset.String("compare-name", "node-ref", "name of the second agent in the reports")
	jsonOut := fset.String("json", "", `write the results as JSON to this file ("-": standard output)`)
	inProcess := fset.Bool("in-process", false, "run the agent under test inside this process (to profile it with --pprof; not for the figures)")
	pprofAddr := fset.String("pprof", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060) during the run")
	procs := fset.Int("generator-procs", 1, "cores the generator's Go code runs on at once (its GOMAXPROCS), leaving the rest to the agent under test; 0: Go's default (ignored with --in-process)")
	if err := fset.Parse(args); err != nil {
		return parseError(err)
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "byomcp bench: unexpected argument %q\n", fset.Arg(0))
		return errUsage
	}
	if *procs < 0 {
		fmt.Fprintf(stderr, "byomcp bench: --generator-procs %d: want 0 (Go's default) or more\n", *procs)
		return errUsage
	}

	var list []loadgen.Scenario
	if *sessions > 0 {
		list = []loadgen.Scenario{{Name: "custom", Sessions: *sessions, Rate: *rate, Duration: *duration, ToolsPerTurn: *tools, Hold: *hold, RenewEvery: *renew}}
	} else {
		want := splitList(*scenarios)
		for _, sc := range loadgen.Suite(*scale) {
			if slices.Contains(want, sc.Name) {
				list = append(list, sc)
			}
		}
		if len(list) == 0 {
			return fmt.Errorf("bench: no scenario among %q (%s)", *scenarios, strings.Join(suiteNames, ", "))
		}
	}

	ours := loadgen.Spec{Name: *name, Command: strings.Fields(*cmd)}
	switch {
	case *server != "":
		ours = loadgen.Spec{Name: *name, URL: *server, PID: *pid}
	case *inProcess:
		ours = loadgen.Spec{Name: *name + " (in process)", Start: startInProcess}
	}
	b := loadgen.Bench{Targets: []loadgen.Spec{ours}, Scenarios: list, Options: loadgen.Options{Progress: stderr}, Python: strings.Fields(*python)}
	if *compare != "" {
		b.Targets = append(b.Targets, loadgen.Spec{Name: *compareName, Command: strings.Fields(*compare)})
	}

	if *pprofAddr != "" {
		// A sample every 4 KiB instead of every 512 KiB: an idle tab's few KiB show up in the heap
		// profile (set before the agent under test allocates anything).
		runtime.MemProfileRate = 4096
		stop, err := servePprof(*pprofAddr)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Fprintf(stderr, "pprof on http://%s/debug/pprof/\n", *pprofAddr)
	}

	if !*inProcess { // in process, the agent would be paced and confined too
		paceGenerator()
		if *procs > 0 {
			// The generator shares the machine's cores with the agent under test. On two of
			// them, with a P each, the two processes' threads handed the cores back and forth:
			// at saturation the generator took ~53 µs of CPU a tool call with two Ps and ~45
			// with one, which it still drives at ~0.75 of a core (bench/PERFORMANCE.md).
			runtime.GOMAXPROCS(*procs)
		}
	}
	results, runErr := b.Run(ctx)
	if *jsonOut != "-" {
		fmt.Fprintln(stdout)
		if err := loadgen.WriteSummary(stdout, results); err != nil {
			return err
		}
		if err := loadgen.WriteDetails(stdout, results); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, stdout, results); err != nil {
			return err
		}
	}
	return runErr
}

func writeJSON(path string, stdout io.Writer, results []*loadgen.Result) error {
	if path == "-" {
		return loadgen.WriteJSON(stdout, results)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := loadgen.WriteJSON(f, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// suiteNames are the scenarios of the suite, in order.
var suiteNames = func() []string {
	var names []string
	for _, sc := range loadgen.Suite(1) {
		names = append(names, sc.Name)
	}
	return names
}()

// startInProcess runs the agent inside the generator (the scenario's store, the fake
// model), as serve does, for profiling.
func startInProcess(ctx context.Context, m *loadgen.Model, storeName string) (string, int, func(), error) {
	var st store.Store = store.NewMemory()
	dir := ""
	if storeName == "sqlite" {
		var err error
		if dir, err = os.MkdirTemp("", "byomcp-bench-store-"); err != nil {
			return "", 0, nil, err
		}
		if st, err = store.OpenSQLite(ctx, filepath.Join(dir, "bench.db")); err != nil {
			_ = os.RemoveAll(dir)
			return "", 0, nil, err
		}
	}
	client := &http.Client{Transport: llm.NewTransport(llm.TransportOptions{TLS: m.ClientTLS()})}
	srv, err := agentsvc.NewServer(agentsvc.Config{
		Store: st,
		Model: llm.NewOpenAI(llm.Options{BaseURL: m.URL, APIKey: "bench-key", Model: "fake-model", Provider: llm.ProviderCustom, HTTPClient: client}),
	})
	if err != nil {
		_ = st.Close()
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return "", 0, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, err
	}
	hs := &http.Server{Handler: routes(srv, nil, nil, nil, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = srv.Shutdown(sctx)
		_ = st.Close()
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	return "http://" + ln.Addr().String(), os.Getpid(), stop, nil
}

// servePprof serves the profiler of this process; only `byomcp bench --pprof` does.
func servePprof(addr string) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "pprof:", err)
		}
	}()
	return func() { _ = hs.Close() }, nil
}
