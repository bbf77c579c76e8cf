package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// request is the body of a streamed Chat Completions request, encoded with
// segmentio/encoding. The whole conversation is encoded on every model call; through
// openai-go's parameter types (a reflection-based encoder) an 85-message conversation took
// 224 µs and 2,145 allocations, here about 60 µs and 273 (BenchmarkRequestEncode).
type request struct {
	Model         string        `json:"model"`
	Messages      []message     `json:"messages"`
	Tools         []tool        `json:"tools,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content,omitempty"` // absent for an assistant message of tool calls only
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
	// Extra are the fields the provider sent with the call that the client does not know
	// (Gemini's extra_content.google.thought_signature); they go back unchanged.
	Extra map[string]json.RawMessage `json:"-"`
}

type toolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON adds Extra's fields (in key order) to the known ones.
func (tc toolCall) MarshalJSON() ([]byte, error) {
	type plain toolCall
	b, err := fastjson.Marshal(plain(tc))
	if err != nil || len(tc.Extra) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, k := range slices.Sorted(maps.Keys(tc.Extra)) {
		if isToolCallField(k) {
			continue
		}
		key, _ := json.Marshal(k)
		b = append(b, ',')
		b = append(b, key...)
		b = append(b, ':')
		b = append(b, tc.Extra[k]...)
	}
	return append(b, '}'), nil
}

type tool struct {
	Type     string         `json:"type"`
	Function toolDefinition `json:"function"`
}

type toolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"` // sent byte for byte
}

// requestBody encodes req as a streamed Chat Completions request for model.
func requestBody(model string, req Request) ([]byte, error) {
	body := request{
		Model:         model,
		Messages:      make([]message, 0, len(req.Messages)),
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
	}
	for i, msg := range req.Messages {
		if msg.End != nil && msg.Content == "" && len(msg.ToolCalls) == 0 {
			// Only marks how a turn ended, for the page (chat.Message.End). After a user
			// message it stands for the answer that never came: two user messages in a row
			// would read as one question, or be refused by strict providers.
			if n := len(body.Messages); n == 0 || body.Messages[n-1].Role != chat.RoleUser {
				continue
			}
			msg = chat.Message{Role: chat.RoleAssistant, Content: noAnswer(msg.End)}
		}
		m, err := messageBody(msg)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		body.Messages = append(body.Messages, m)
	}
	for _, t := range req.Tools {
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		if params[0] != '{' || !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: parameters are not a JSON object", t.Name)
		}
		body.Tools = append(body.Tools, tool{Type: "function", Function: toolDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	var buf bytes.Buffer
	enc := fastjson.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // tool output is full of <, > and &: send them as they are
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func messageBody(msg chat.Message) (message, error) {
	m := message{Role: string(msg.Role)}
	switch msg.Role {
	case chat.RoleSystem, chat.RoleUser:
		m.Content = &msg.Content
	case chat.RoleTool:
		m.Content = &msg.Content
		m.ToolCallID = msg.ToolCallID
	case chat.RoleAssistant:
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			m.Content = &msg.Content
		}
		for _, tc := range msg.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, toolCall{
				ID: tc.ID, Type: "function",
				Function: toolFunction{Name: tc.Name, Arguments: tc.Arguments},
				Extra:    tc.Extra,
			})
		}
	default:
		return message{}, fmt.Errorf("unknown message role %q", msg.Role)
	}
	return m, nil
}

// noAnswer is what the model is told in place of the answer of a turn that ended without one.
func noAnswer(end *chat.TurnEnd) string {
	switch end.StopReason {
	case "cancelled":
		return "(No answer: the user stopped this turn before I answered.)"
	case "max_iterations":
		return "(No answer: this turn reached its limit of steps before I answered.)"
	default:
		return "(No answer: this turn failed or was interrupted before I answered.)"
	}
}
