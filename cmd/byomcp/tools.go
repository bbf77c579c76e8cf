package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byomcp/byomcp/agentsvc/toolserver"
)

// runTools is `byomcp tools`: the demo tools as a stdio MCP server.
func runTools(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	fset := flag.NewFlagSet("tools", flag.ContinueOnError)
	fset.SetOutput(stderr)
	notes := fset.String("notes", envOr(getenv, "BYOMCP_NOTES", notesPath(getenv("BYOMCP_STORE"))), "SQLite file for add_note/list_notes (env BYOMCP_NOTES)")
	if err := fset.Parse(args); err != nil {
		return parseError(err)
	}
	if fset.NArg() > 0 {
		// A word would end the flags: the ones after it would be ignored without one.
		return invalid(fmt.Errorf("tools: unexpected argument %q (flags are --name value; see byomcp tools --help)", fset.Arg(0)))
	}
	return toolserver.Run(ctx, &mcp.StdioTransport{}, toolserver.Options{NotesPath: *notes})
}

// notesPath keeps notes in the service's SQLite file when it has one.
func notesPath(storeSpec string) string {
	if p, ok := strings.CutPrefix(storeSpec, "sqlite:"); ok && p != "" {
		return p
	}
	return "byomcp.db"
}
