package mcpservers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// ServerTools is what a conversation uses of the server-side tools; *Manager is one, tests
// use fakes.
type ServerTools interface {
	// ToolDefs lists the tools exposed to an audience (AudienceWeb, AudienceCLI), named
	// "<server>__<tool>".
	ToolDefs(audience string) []chat.ToolDef
	// Call validates and calls a tool for an audience.
	Call(ctx context.Context, audience, modelName string, args json.RawMessage) (*mcp.CallToolResult, error)
}

var _ ServerTools = (*Manager)(nil)

// Toolbox is the toolbox (agentsvc/loop) of a conversation that has only server-side tools:
// the terminal's, or an AG-UI run's server part.
type Toolbox struct {
	Tools    ServerTools
	Audience string
}

// Defs lists the audience's tools.
func (b Toolbox) Defs(context.Context) []chat.ToolDef { return b.Tools.ToolDefs(b.Audience) }

// Call runs one call of the model.
func (b Toolbox) Call(ctx context.Context, call chat.ToolCall) tools.Outcome {
	return CallTool(ctx, b.Tools, b.Audience, call.Name, json.RawMessage(call.Arguments), 0)
}

// Destructive reports whether the server tool name (as ToolDefs lists it) says it may
// destroy or change things, with MCP's destructiveHint: true. A web conversation runs such a
// tool only once the visitor confirmed the call, as it does a page's (the hint is the
// server's: an absent hint asks for nothing, like a page tool's).
func Destructive(st ServerTools, audience, name string) bool {
	a, ok := st.(interface {
		ToolAnnotations(audience, modelName string) *mcp.ToolAnnotations
	})
	if !ok {
		return false
	}
	ann := a.ToolAnnotations(audience, name)
	return ann != nil && ann.DestructiveHint != nil && *ann.DestructiveHint
}

// NeedsConfirmation is the one rule for a web conversation's call of server tool name (a
// page's socket and an AG-UI run alike): the visitor confirms it when the tool says it is
// destructive, or when the operator's list (--confirm-tools) or the site's policy
// (siteConfirms) names it.
func NeedsConfirmation(st ServerTools, name string, listed []string, siteConfirms func(string) bool) bool {
	return Destructive(st, AudienceWeb, name) || slices.Contains(listed, name) || siteConfirms(name)
}

// CallTool calls a server-side tool for an audience and renders its result for the model
// (at most maxOutput bytes; 0: tools.DefaultMaxOutput).
func CallTool(ctx context.Context, st ServerTools, audience, name string, args json.RawMessage, maxOutput int) tools.Outcome {
	res, err := st.Call(ctx, audience, name, args)
	return outcomeOf(ctx, name, res, err, maxOutput)
}

// outcomeOf is the outcome of a call of server tool name that returned res, err.
func outcomeOf(ctx context.Context, name string, res *mcp.CallToolResult, err error, maxOutput int) tools.Outcome {
	switch {
	case err == nil:
		text, isErr := tools.Render(res, maxOutput)
		return tools.Answered(name, text, isErr)
	case ctx.Err() != nil:
		return tools.CancelledCall(name)
	case errors.Is(err, ErrUnknownTool):
		return tools.Unknown(name)
	case errors.Is(err, ErrInvalidArguments):
		return tools.InvalidArguments(name, err)
	default:
		return tools.CallFailed(name, err)
	}
}

// ToolLister is what a ServerTools may also give: its tools with their titles, annotations
// and _meta, which the visitor's confirmation card shows (the Manager is one).
type ToolLister interface {
	Tools(audience string) []Tool
}

// Find returns the tool an audience calls by modelName, when st lists its tools.
func Find(st ServerTools, audience, modelName string) (Tool, bool) {
	if l, ok := st.(ToolLister); ok {
		for _, t := range l.Tools(audience) {
			if t.ModelName == modelName {
				return t, true
			}
		}
	}
	return Tool{}, false
}
