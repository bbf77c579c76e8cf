package main

import (
	"context"
	"io"

	"github.com/byomcp/byomcp/agentsvc/conformance"
)

// runConformance is `byomcp conformance-client URL`: the client side of the official MCP
// conformance suite; the scenario comes from MCP_CONFORMANCE_SCENARIO.
func runConformance(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) != 1 {
		io.WriteString(stderr, "usage: byomcp conformance-client URL\n")
		return errUsage
	}
	return conformance.RunClient(ctx, args[0], getenv("MCP_CONFORMANCE_SCENARIO"), stdout, stderr)
}
