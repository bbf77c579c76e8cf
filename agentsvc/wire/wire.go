// Package wire is the page socket's protocol (/v1/ws), version 1: the method names, the
// agent/event types, the params and results of each method, the error codes and the _meta
// keys, as both sides put them on the wire; and the relay's messages between replicas
// (relay.go). It holds types and constants, no behaviour.
package wire

import "slices"

// ProtocolVersion is the MCP revision the agent asks the page for.
const ProtocolVersion = "2025-11-25"

// SupportedVersions are the MCP revisions a page may answer with, newest first.
var SupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Supported tells whether a page answering initialize with version v is accepted.
func Supported(v string) bool { return slices.Contains(SupportedVersions, v) }

// Methods on the page socket (DESIGN.md, "Wire protocol"). The JS names are in
// jsclient/protocol.js and must match.
const (
	// Agent → page (the agent is the MCP client of the page's tools).
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodToolsList   = "tools/list"
	MethodToolsCall   = "tools/call"
	MethodAgentEvent  = "agent/event"
	// MethodAgentConfirm asks the page to have the visitor confirm a call of a server-side
	// tool before it runs (ConfirmParams → ConfirmResult); kept alive by progress like a
	// tools/call that waits for a confirmation.
	MethodAgentConfirm = "agent/confirm"
	// MethodAgentElicit asks the page to have the visitor answer a server-side MCP server's
	// request for input (its elicitation/create, during a call of its tool: ElicitParams →
	// ElicitResult); kept alive by progress like agent/confirm.
	MethodAgentElicit = "agent/elicit"
	// Page → agent.
	MethodAgentSession     = "agent/session"
	MethodAgentChat        = "agent/chat"
	MethodAgentCancel      = "agent/cancel"
	MethodProgress         = "notifications/progress"
	MethodToolsListChanged = "notifications/tools/list_changed"
	// Both ways.
	MethodCancelled = "notifications/cancelled"
	MethodPing      = "ping"
)

// Stop reasons of a turn (turn_end's stopReason, agent/chat's result).
const (
	StopEnd           = "end"
	StopMaxIterations = "max_iterations"
	StopCancelled     = "cancelled"
	StopError         = "error"
)

// Keys of a tools/call's _meta (agent → page) and of a tool result's _meta (page → agent).
const (
	// MetaProgressToken names the token the page quotes in notifications/progress to keep
	// the call alive.
	MetaProgressToken = "progressToken"
	// MetaConfirm set to true asks the page to have the user confirm the call.
	MetaConfirm = "byomcp/confirm"
	// MetaSummary in a tool's _meta is its one-line summary of a call on the visitor's
	// confirmation card: a template over the argument names ("Book the {carId} on {date}").
	MetaSummary = "byomcp/summary"
	// MetaNavigating set to true in a tool result says the page is about to navigate: the
	// agent then waits for the page to come back (with its new tools) before it goes on,
	// instead of racing the navigation with the old page's tools.
	MetaNavigating = "byomcp/navigating"
)
