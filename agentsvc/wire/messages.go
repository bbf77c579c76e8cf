package wire

import (
	"encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
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
	// WebMCP's hints, carried by the page as annotations (README, "WebMCP support"):
	// consequentialHint asks the visitor to confirm, as destructiveHint does;
	// untrustedContentHint marks the tool's output as content from third parties.
	ConsequentialHint    bool `json:"consequentialHint,omitempty"`
	UntrustedContentHint bool `json:"untrustedContentHint,omitempty"`
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
	Meta      *ToolsCallMeta  `json:"_meta,omitempty"`
}

// ToolsCallMeta is the _meta of tools/call: MetaProgressToken, and MetaConfirm when the
// user is to confirm the call.
type ToolsCallMeta struct {
	ProgressToken string `json:"progressToken"`
	Confirm       bool   `json:"byomcp/confirm,omitempty"`
}

// ConfirmParams is agent/confirm: the server tool the model calls (its model-facing name),
// its arguments, what the visitor's confirmation card shows of the tool (Tool, optional), and
// the progress token the page keeps the question alive with.
type ConfirmParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Tool is the server tool as its MCP server lists it, for the card: its title, the schema
	// its arguments are labelled and edited with, and _meta["byomcp/summary"] (MetaSummary).
	Tool *ConfirmTool   `json:"tool,omitempty"`
	Meta *ToolsCallMeta `json:"_meta,omitempty"`
}

// ConfirmTool is what the confirmation card shows of a server tool (MCP's Tool, less its name).
type ConfirmTool struct {
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema json.RawMessage  `json:"inputSchema,omitempty"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Meta is the tool's _meta; MetaSummary is the card's one-line summary of the call.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ConfirmResult answers agent/confirm: whether the visitor allowed the call; when allowed,
// the arguments the visitor edited on the card (only when some changed: the tool runs with
// them, and the model is told, docs/site.md says how); when declined, the
// visitor's reason (optional: the model reads it, docs/site.md says how).
type ConfirmResult struct {
	Confirmed bool            `json:"confirmed"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// ElicitParams is agent/elicit: a server-side MCP server's request for the visitor's input
// (MCP 2025-11-25 elicitation/create), made during a call of its tool. Server is the MCP
// server's name; Mode is ElicitForm (RequestedSchema: a flat object of strings, numbers,
// booleans and enums, as MCP restricts it) or ElicitURL (URL: the address the visitor is
// asked to open; ElicitationID: the server's id of that request).
type ElicitParams struct {
	Server          string          `json:"server"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	Meta            *ToolsCallMeta  `json:"_meta,omitempty"`
}

// ElicitResult answers agent/elicit, as MCP's ElicitResult: Action is ElicitAccept,
// ElicitDecline or ElicitCancel; Content (form mode, accept only) holds the visitor's
// answers by property name, and must fit the requested schema.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// The modes of ElicitParams and the actions of ElicitResult (MCP's).
const (
	ElicitForm    = "form"
	ElicitURL     = "url"
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ProgressParams is notifications/progress.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// The progress messages of a call that the visitor must confirm first (the widget's): it
// sends ProgressAwaitingConfirm as soon as it asks and while it waits, and ProgressConfirmed
// once the visitor confirmed, before the tool runs. A page that goes away while the last one
// the agent read was ProgressAwaitingConfirm did not run the tool.
const (
	ProgressAwaitingConfirm = "waiting for the user to confirm"
	ProgressConfirmed       = "confirmed by the user"
)

// CancelledParams is notifications/cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// Page is the page a conversation is on.
type Page struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// SessionParams is agent/session.
type SessionParams struct {
	SessionID string `json:"sessionId,omitempty"`
	LastSeq   *int64 `json:"lastSeq,omitempty"`
	Page      *Page  `json:"page,omitempty"`
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
	// Running is the turn running when the session was opened, with its events up to Seq
	// (nil when no turn runs): with Messages, everything a page needs to show up to Seq.
	Running *RunningTurn `json:"running,omitempty"`
}

// RunningTurn is the running turn of a SessionResult: its id, the page's id for its
// message, and its events up to the result's seq in order (from its turn_start; each run of
// text_delta merged into one event that carries the run's last seq).
type RunningTurn struct {
	TurnID       string            `json:"turnId"`
	ClientTurnID string            `json:"clientTurnId,omitempty"`
	Events       []json.RawMessage `json:"events"`
}

// ChatParams is agent/chat. ClientTurnID is the page's own id for the message (at most
// MaxClientTurnID bytes); the turn's turn_start echoes it.
type ChatParams struct {
	Text         string `json:"text"`
	ClientTurnID string `json:"clientTurnId,omitempty"`
}

// MaxClientTurnID bounds agent/chat's clientTurnId, in bytes.
const MaxClientTurnID = 128

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
