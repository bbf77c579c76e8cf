package agui

import (
	"encoding/json"
	"strings"
)

// Event types this endpoint sends, as @ag-ui/core 1.0 names them.
const (
	EventRunStarted         = "RUN_STARTED"
	EventRunFinished        = "RUN_FINISHED"
	EventRunError           = "RUN_ERROR"
	EventTextMessageStart   = "TEXT_MESSAGE_START"
	EventTextMessageContent = "TEXT_MESSAGE_CONTENT"
	EventTextMessageEnd     = "TEXT_MESSAGE_END"
	EventToolCallStart      = "TOOL_CALL_START"
	EventToolCallArgs       = "TOOL_CALL_ARGS"
	EventToolCallEnd        = "TOOL_CALL_END"
	EventToolCallResult     = "TOOL_CALL_RESULT"
	EventMessagesSnapshot   = "MESSAGES_SNAPSHOT"
)

// Message roles of AG-UI.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	RoleSystem    = "system"
	RoleDeveloper = "developer"
	RoleActivity  = "activity"  // accepted in the input and ignored
	RoleReasoning = "reasoning" // accepted in the input and ignored
)

// RunAgentInput is the body of POST /v1/agui (@ag-ui/core RunAgentInputSchema). State and
// forwardedProps are accepted and not used.
type RunAgentInput struct {
	ThreadID       string          `json:"threadId"`
	RunID          string          `json:"runId"`
	ParentRunID    string          `json:"parentRunId,omitempty"`
	State          json.RawMessage `json:"state,omitempty"`
	Messages       []Message       `json:"messages"`
	Tools          []Tool          `json:"tools,omitempty"`
	Context        []Context       `json:"context,omitempty"`
	ForwardedProps json.RawMessage `json:"forwardedProps,omitempty"`
	// Resume answers the interrupts the thread's last run ended with (confirm.go).
	Resume []ResumeEntry `json:"resume,omitempty"`
}

// ResumeEntry answers one interrupt (@ag-ui/core ResumeEntrySchema): status "resolved" (the
// visitor answered: Payload is the answer) or "cancelled" (abandoned). Metadata is accepted
// and not used.
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}

// Resume statuses of @ag-ui/core 1.0.
const (
	ResumeResolved  = "resolved"
	ResumeCancelled = "cancelled"
)

// Interrupt is something a run needs from outside before it goes on (@ag-ui/core
// InterruptSchema): here, the visitor's confirmation of one server tool call (confirm.go), or
// the visitor's answer to a server's question during one (elicit.go; Metadata names the
// server, the mode and the URL to open).
type Interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	ExpiresAt      string          `json:"expiresAt,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// Message is an AG-UI message. Content is a string, or (user and tool messages) an array
// of content parts; an assistant message may have none.
type Message struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// ToolCall is a call an assistant message made.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall is the name and JSON arguments of a tool call.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a frontend tool: the client runs it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Context is a piece of ambient information for the run.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// The events, one type each, with exactly the fields @ag-ui/core's schemas define.

type runStarted struct {
	Type            string `json:"type"`
	ThreadID        string `json:"threadId"`
	RunID           string `json:"runId"`
	ProtocolVersion string `json:"protocolVersion"`
}

// ProtocolVersion is the AG-UI protocol version this agent speaks, declared in RUN_STARTED.
const ProtocolVersion = "1.0"

type runFinished struct {
	Type     string       `json:"type"`
	ThreadID string       `json:"threadId"`
	RunID    string       `json:"runId"`
	Result   *runResult   `json:"result,omitempty"`
	Outcome  *runOutcome  `json:"outcome,omitempty"`
	Usage    []tokenUsage `json:"usage,omitempty"`
}

// runResult is RUN_FINISHED's free-form result: why the agent stopped when it was not the
// end of its answer, and the warnings of the run (resume entries it did not take).
type runResult struct {
	StopReason string   `json:"stopReason,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// runOutcome is RUN_FINISHED's outcome: "success" (pendingToolCallIds names the frontend
// tool calls the client has to answer), "interrupt" (interrupts names what the visitor has
// to answer in the next run's resume) or "cancelled".
type runOutcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

// tokenUsage is @ag-ui/core's TokenUsage: the provider's label and the bare model name, and
// the counts when they are known (an absent count is one the provider did not report).
type tokenUsage struct {
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	InputTokens  *int64 `json:"inputTokens,omitempty"`
	OutputTokens *int64 `json:"outputTokens,omitempty"`
	TotalTokens  *int64 `json:"totalTokens,omitempty"`
}

type runError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

type textMessageStart struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
}

type textMessageContent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

type textMessageEnd struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
}

type toolCallStart struct {
	Type            string `json:"type"`
	ToolCallID      string `json:"toolCallId"`
	ToolCallName    string `json:"toolCallName"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
}

type toolCallArgs struct {
	Type       string `json:"type"`
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
}

type toolCallEnd struct {
	Type       string `json:"type"`
	ToolCallID string `json:"toolCallId"`
}

type toolCallResult struct {
	Type       string `json:"type"`
	MessageID  string `json:"messageId"`
	ToolCallID string `json:"toolCallId"`
	Content    string `json:"content"`
	Role       string `json:"role"`
}

type messagesSnapshot struct {
	Type     string    `json:"type"`
	Messages []Message `json:"messages"`
}

// text returns the text of a message's content: the string itself, or the text parts of an
// array joined by newlines, with other parts (images, audio, files) described.
func text(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		} else {
			kind, article := p.Type, "a"
			if kind == "" {
				kind = "untyped"
			}
			if strings.ContainsRune("aeiou", rune(kind[0])) {
				article = "an"
			}
			out = append(out, "["+article+" "+kind+" part was attached; this agent reads text only]")
		}
	}
	return strings.Join(out, "\n")
}

// stringContent is content holding one string.
func stringContent(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
