// Package chat holds the vocabulary of a conversation shared by the model client, the
// store and the agent loop: messages, tool calls, tool definitions and token usage.
package chat

import "encoding/json"

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a conversation in the shape of the Chat Completions API.
type Message struct {
	// ID names the message for a client that tracks messages by id (AG-UI); "" when none.
	ID      string `json:"id,omitempty"`
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID names the call a tool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Name is the model-facing tool name a tool message answers (informational).
	Name string `json:"name,omitempty"`
	// TurnID is the turn that produced the message.
	TurnID string `json:"turnId,omitempty"`
	// End, on the last message of a turn that did not end with its answer, says how it
	// ended, so that a page shows it again from the stored messages. Never sent to a model.
	End *TurnEnd `json:"end,omitempty"`
}

// TurnEnd is how a turn ended when not with its answer: its stop reason (cancelled, error,
// max_iterations) and, for error, the message the user was shown.
type TurnEnd struct {
	StopReason string `json:"stopReason"`
	Error      string `json:"error,omitempty"`
}

// ToolCall is one function call produced by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`      // model-facing name
	Arguments string `json:"arguments"` // JSON text as produced by the model
	// Extra holds fields of the tool call the client does not know (for example Gemini's
	// extra_content.google.thought_signature), as a JSON object of field name to raw value.
	// They are echoed back unchanged in later requests.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// ToolDef is a tool as offered to the model.
type ToolDef struct {
	Name        string          `json:"name"` // model-facing name, ^[A-Za-z_][A-Za-z0-9_-]{0,63}$
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema object
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	TotalTokens      int64 `json:"totalTokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
	}
}
