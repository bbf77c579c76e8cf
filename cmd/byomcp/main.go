// Command byomcp is the agent service: `serve` (default) serves the page socket, the
// browser client and the demo; `chat` talks to the agent from a terminal; `tools` is a
// stdio MCP server with a few demo tools; `conformance-client` runs the MCP conformance
// suite's client scenarios.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopping := make(chan os.Signal, 1)
	signal.Notify(stopping, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stopping
		// The signals' default action again, before anything sees ctx end (and logs that it
		// stops): a second SIGINT or SIGTERM ends the process at once.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel()
	}()
	if log, err := newLogger("warn", os.Stderr); err == nil {
		redis.SetLogger(redisLogger{log.Named("redis")}) // the Redis pool's complaints, as JSON lines too
	}
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "byomcp:", err)
		}
		os.Exit(exitCode(err))
	}
}

var errUsage = errors.New("usage")

// exitCode is the status for err: 2 for a command line, variable or configuration file that
// cannot be used (flags that do not parse, invalid), 1 for a failure while running.
func exitCode(err error) int {
	var ee exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, errUsage):
		return 2
	}
	return 1
}

const usage = `byomcp: give an AI agent the tools of any web page.

Usage:
  byomcp [serve] [flags]          serve the page socket (/v1/ws), the client (/byomcp/) and the demo (/)
  byomcp chat [flags] [question]  chat from the terminal with the tools of mcp.json (one question, or interactive)
  byomcp tools [flags]            run the demo tools as a stdio MCP server
  byomcp conformance-client URL   client for the MCP conformance suite (reads MCP_CONFORMANCE_SCENARIO)
  byomcp bench [flags]            load-test an agent: sessions held, memory, latency, throughput (see bench/PERFORMANCE.md)

Run "byomcp <command> -h" for the flags of a command.
`

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd = "help" // byomcp --help: the commands (byomcp serve --help: serve's flags)
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, stdout, stderr, getenv)
	case "chat":
		return runChat(ctx, args, stdin, stdout, stderr, getenv)
	case "tools":
		return runTools(ctx, args, stderr, getenv)
	case "conformance-client":
		return runConformance(ctx, args, stdout, stderr, getenv)
	case "bench":
		return runBench(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "byomcp: unknown command %q\n\n%s", cmd, usage)
		return errUsage
	}
}
