// Command conformance-client is the client the MCP conformance suite runs in
// e2e/mcp/conformance.sh: `conformance-client URL`, scenario in MCP_CONFORMANCE_SCENARIO.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/byomcp/byomcp/agentsvc/conformance"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: conformance-client URL (scenario in " + conformance.EnvScenario + ")")
	}
	return conformance.RunClient(ctx, args[0], os.Getenv(conformance.EnvScenario), stdout, stderr)
}
