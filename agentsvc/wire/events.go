package wire

import (
	"encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// Types of agent/event. Clients ignore types they do not know.
const (
	EventTurnStart    = "turn_start"
	EventTextDelta    = "text_delta"
	EventToolCall     = "tool_call"
	EventToolResult   = "tool_result"
	EventTurnEnd      = "turn_end"
	EventError        = "error"
	EventToolRejected = "tool_rejected"
)

// Event is the params of one agent/event; Header gives access to the fields its sender
// fills (session, turn, seq, time).
type Event interface {
	Header() *EventHeader
}

// EventHeader starts every agent/event.
type EventHeader struct {
	SessionID string `json:"sessionId,omitempty"`
	TurnID    string `json:"turnId,omitempty"`
	Seq       int64  `json:"seq,omitempty"`
	Type      string `json:"type"`
	Time      int64  `json:"time,omitempty"` // when it was logged, in milliseconds since 1970 (UTC)
}

// Header returns the event's header.
func (h *EventHeader) Header() *EventHeader { return h }

// TurnStartEvent: a turn began with this user text; ClientTurnID echoes agent/chat's.
type TurnStartEvent struct {
	EventHeader
	Text         string `json:"text"`
	ClientTurnID string `json:"clientTurnId,omitempty"`
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
	// Confirmation is how the visitor answered, when the call needed their confirmation.
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Asked are the server's requests for the visitor's input during the call (agent/elicit)
	// and how each ended; not what the visitor answered, which goes to the server only.
	Asked []Asked `json:"asked,omitempty"`
	// App is the MCP App shown with the result (a server tool with _meta.ui.resourceUri).
	App *App `json:"app,omitempty"`
}

// Asked is one request of a server tool's MCP server for the visitor's input during a call,
// as its tool_result records it (the console's transcript shows it).
type Asked struct {
	// Server is the MCP server's name.
	Server string `json:"server"`
	// Message is the server's question.
	Message string `json:"message"`
	// Mode is ElicitForm or ElicitURL.
	Mode string `json:"mode"`
	// Action is what the server was told: ElicitAccept, ElicitDecline or ElicitCancel.
	Action string `json:"action"`
	// Missed says why the server was told cancel without the visitor choosing it: AskedLate,
	// AskedGone, AskedUnable or AskedBadAnswer; "" when the visitor answered.
	Missed string `json:"missed,omitempty"`
	// At is when the agent learned the answer, in milliseconds since the Unix epoch.
	At int64 `json:"at,omitempty"`
}

// Why a request for input was answered cancel without the visitor (Asked.Missed).
const (
	AskedLate      = "timeout"    // the visitor did not answer in time
	AskedGone      = "page_gone"  // the page went away and no next page asked again
	AskedUnable    = "unable"     // no page, or the page cannot ask (no agent/elicit)
	AskedBadAnswer = "bad_answer" // the page's answer is not an ElicitResult fitting the schema
)

// Confirmation is how the visitor answered a call that asked for their confirmation (a
// consequential page tool, a form or a server tool named in the confirm policy), as its
// tool_result records it: the console's transcript shows who answered what, and when.
type Confirmation struct {
	// Answer is ConfirmConfirmed, ConfirmDeclined or ConfirmUnanswered.
	Answer string `json:"answer"`
	// Changed: the visitor changed the arguments on the card before confirming.
	Changed bool `json:"changed,omitempty"`
	// Reason is the visitor's reason for a decline, when they gave one.
	Reason string `json:"reason,omitempty"`
	// At is when the agent learned the answer, in milliseconds since the Unix epoch.
	At int64 `json:"at,omitempty"`
}

// The answers of a Confirmation.
const (
	ConfirmConfirmed  = "confirmed"
	ConfirmDeclined   = "declined"
	ConfirmUnanswered = "unanswered" // the page went away, or the time ran out, before an answer
)

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

// ToolRejectedEvent: a page tool could not be used. Sent as soon as it is found, outside
// the session's log (no seq; no sessionId before agent/session).
type ToolRejectedEvent struct {
	EventHeader
	Name   string `json:"name"`
	Reason string `json:"reason"`
}
