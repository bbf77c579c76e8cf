package agentsvc

import (
	"encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/wsrpc"
)

// ProtocolVersion is the MCP revision the agent asks the page for.
const ProtocolVersion = "2025-11-25"

// supportedVersions are the MCP revisions a page may answer with.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Methods on the page socket (DESIGN.md, "Wire protocol"). The JS names are in
// jsclient/protocol.js and must match.
const (
	MethodInitialize       = "initialize"
	MethodInitialized      = "notifications/initialized"
	MethodToolsList        = "tools/list"
	MethodToolsCall        = "tools/call"
	MethodCancelled        = "notifications/cancelled"
	MethodProgress         = "notifications/progress"
	MethodToolsListChanged = "notifications/tools/list_changed"
	MethodPing             = "ping"
	MethodAgentSession     = "agent/session"
	MethodAgentChat        = "agent/chat"
	MethodAgentCancel      = "agent/cancel"
	MethodAgentEvent       = "agent/event"
)

// Event types of agent/event.
const (
	EventTurnStart    = "turn_start"
	EventTextDelta    = "text_delta"
	EventToolCall     = "tool_call"
	EventToolResult   = "tool_result"
	EventTurnEnd      = "turn_end"
	EventError        = "error"
	EventToolRejected = "tool_rejected"
)

// Stop reasons of a turn.
const (
	StopEnd           = "end"
	StopMaxIterations = "max_iterations"
	StopCancelled     = "cancelled"
	StopError         = "error"
)

// Server-defined JSON-RPC error codes (-32000…-32099), listed in the README.
const (
	CodeTurnInProgress  = -32001 // a turn is already running in this session
	CodeSessionNotFound = -32002 // unknown session id, or one created by another origin
	CodeTextTooLong     = -32004 // agent/chat text over the limit, or empty
	CodeNoSession       = -32005 // agent/chat before agent/session
	CodeNoTurn          = -32007 // agent/cancel with no matching running turn
	CodeStoreDown       = -32010 // the session store does not answer: nothing can be saved now
	CodeRateLimited     = -32029 // too many messages from this socket
	CodeBusy            = -32030 // too many turns running from this client, or in all
	CodeTooManySessions = -32031 // this client creates sessions too fast
	CodeCancelledEarly  = -32032 // the request was cancelled before it started
	CodeOverBudget      = -32033 // the site's token budget (per conversation per hour, or per day) is used up
)

// Error values sent to the page.
var (
	errTurnInProgress  = wsrpc.NewError(CodeTurnInProgress, "a turn is already running in this session")
	errSessionNotFound = wsrpc.NewError(CodeSessionNotFound, "session not found")
	errNoSession       = wsrpc.NewError(CodeNoSession, "call agent/session first")
	errNoTurn          = wsrpc.NewError(CodeNoTurn, "no running turn to cancel")
	errClientBusy      = wsrpc.NewError(CodeBusy, "too many turns are running from your address; try again when one has ended")
	errServerBusy      = wsrpc.NewError(CodeBusy, "the agent is busy: too many turns are running; try again in a moment")
	errTooManySessions = wsrpc.NewError(CodeTooManySessions, "too many new conversations from your address; try again in a minute")
	errCancelledEarly  = wsrpc.NewError(CodeCancelledEarly, "the request was cancelled before it started")
)

// InitializeParams is the agent's initialize request.
type InitializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ClientInfo      Implementation `json:"clientInfo"`
}

// Implementation names a peer.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the page's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// ToolsListParams asks for a page of tools.
type ToolsListParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// PageTool is a tool as the page lists it.
type PageTool struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema json.RawMessage  `json:"inputSchema,omitempty"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the page's hints about a tool (hints, not permissions).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolsListResult is one page of tools/list.
type ToolsListResult struct {
	Tools      []PageTool `json:"tools"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// ToolsCallParams calls a page tool.
type ToolsCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// MetaConfirm in a tools/call _meta asks the page to have the user confirm the call.
const MetaConfirm = "byomcp/confirm"

// MetaNavigating set to true in a tool result's _meta says the page is about to navigate:
// the agent then waits for the page to come back (with its new tools) before it goes on,
// instead of racing the navigation with the old page's tools.
const MetaNavigating = "byomcp/navigating"

// ProgressParams is notifications/progress.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// CancelledParams is notifications/cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// SessionParams is agent/session.
type SessionParams struct {
	SessionID string      `json:"sessionId,omitempty"`
	LastSeq   *int64      `json:"lastSeq,omitempty"`
	Page      *store.Page `json:"page,omitempty"`
}

// SessionResult answers agent/session.
type SessionResult struct {
	SessionID string         `json:"sessionId"`
	Resumed   bool           `json:"resumed"`
	Messages  []chat.Message `json:"messages"`
	Seq       int64          `json:"seq"`
	// Forked is set when the requested session was live on another socket and this one
	// got a new session with a copy of its history.
	Forked bool `json:"forked,omitempty"`
}

// ChatParams is agent/chat.
type ChatParams struct {
	Text string `json:"text"`
}

// ChatResult answers agent/chat.
type ChatResult struct {
	TurnID     string     `json:"turnId"`
	Text       string     `json:"text"`
	StopReason string     `json:"stopReason"`
	Usage      chat.Usage `json:"usage"`
}

// CancelParams is agent/cancel.
type CancelParams struct {
	TurnID string `json:"turnId,omitempty"`
}

// CancelResult answers agent/cancel.
type CancelResult struct {
	TurnID string `json:"turnId"`
}

// EventHeader starts every agent/event.
type EventHeader struct {
	SessionID string `json:"sessionId,omitempty"`
	TurnID    string `json:"turnId,omitempty"`
	Seq       int64  `json:"seq,omitempty"`
	Type      string `json:"type"`
	Time      int64  `json:"time,omitempty"` // when it was logged, in milliseconds since 1970 (UTC)
}

// TurnStartEvent: a turn began with this user text.
type TurnStartEvent struct {
	EventHeader
	Text string `json:"text"`
}

// TextDeltaEvent: streamed model text.
type TextDeltaEvent struct {
	EventHeader
	Delta string `json:"delta"`
}

// ToolCallEvent: the model called a tool.
type ToolCallEvent struct {
	EventHeader
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResultEvent: a tool call ended.
type ToolResultEvent struct {
	EventHeader
	CallID  string `json:"callId"`
	Name    string `json:"name"`
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
}

// TurnEndEvent: the turn is over.
type TurnEndEvent struct {
	EventHeader
	StopReason  string      `json:"stopReason"`
	Text        string      `json:"text"`
	Interrupted bool        `json:"interrupted,omitempty"`
	Usage       *chat.Usage `json:"usage,omitempty"` // the turn's model tokens
}

// ErrorEvent: something went wrong in the turn.
type ErrorEvent struct {
	EventHeader
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// ToolRejectedEvent: a page tool could not be used.
type ToolRejectedEvent struct {
	EventHeader
	Name   string `json:"name"`
	Reason string `json:"reason"`
}
