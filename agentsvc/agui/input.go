package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/byomcp/byomcp/agentsvc/internal/jsonerr"
)

// errNotInput is a body that is not a RunAgentInput (400); its message says why.
type errNotInput struct{ why string }

func (e errNotInput) Error() string { return "invalid RunAgentInput: " + e.why }

// knownRoles are the roles of @ag-ui/core 1.0's MessageSchema (a discriminated union on
// role): any other role is not an AG-UI message. activity and reasoning messages are
// accepted and ignored, like system, developer and assistant messages.
var knownRoles = map[string]bool{
	RoleUser: true, RoleAssistant: true, RoleTool: true, RoleSystem: true, RoleDeveloper: true,
	RoleActivity: true, RoleReasoning: true,
}

// decodeInput reads one RunAgentInput from r, as @ag-ui/core's RunAgentInputSchema requires
// it: threadId, runId and messages present (tools and context default to none, but are not
// null), every message with a known role and an id unique in the input, user and tool
// messages with their content (and a tool message its toolCallId), and nothing after the
// JSON value.
// An error from r (the body's size limit) is returned as is; any other is an errNotInput.
func decodeInput(r io.Reader) (*RunAgentInput, error) {
	// messages is required by the schema, where tools and context default to []: a pointer
	// tells a missing or null array from an empty one.
	// tools and context default to none when absent, but null is no array.
	var body struct {
		RunAgentInput
		Messages *[]Message      `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
		Context  json.RawMessage `json:"context"`
		Resume   json.RawMessage `json:"resume"`
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, notInput(err)
	}
	if !utf8.Valid(data) {
		// JSON text is UTF-8 (RFC 8259): decoding would turn the bad bytes into U+FFFD and
		// hand the model text the client never sent.
		return nil, errNotInput{"the body is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&body); err != nil {
		return nil, notInput(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more data after the JSON object")
		}
		return nil, notInput(err)
	}
	in := body.RunAgentInput
	if in.ThreadID == "" || in.RunID == "" || len(in.ThreadID) > maxIDLen || len(in.RunID) > maxIDLen {
		return nil, errNotInput{fmt.Sprintf("threadId and runId are required (1-%d bytes)", maxIDLen)}
	}
	if body.Messages == nil {
		return nil, errNotInput{"messages is required (an array, [] for none)"}
	}
	in.Messages = *body.Messages
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		into any
	}{{"tools", body.Tools, &in.Tools}, {"context", body.Context, &in.Context}, {"resume", body.Resume, &in.Resume}} {
		if len(f.raw) == 0 {
			continue
		}
		if string(f.raw) == "null" {
			return nil, errNotInput{f.name + " must be an array when given ([] for none)"}
		}
		if err := json.Unmarshal(f.raw, f.into); err != nil {
			return nil, notInputAt(f.name, err)
		}
	}
	if err := requireStrings(body.Tools, "tools", "name", "description"); err != nil {
		return nil, err
	}
	if err := requireStrings(body.Context, "context", "description", "value"); err != nil {
		return nil, err
	}
	if err := requireStrings(body.Resume, "resume", "interruptId", "status"); err != nil {
		return nil, err
	}
	for i, e := range in.Resume {
		if e.Status != ResumeResolved && e.Status != ResumeCancelled {
			return nil, errNotInput{fmt.Sprintf(`resume[%d]: status must be "resolved" or "cancelled", not %q`, i, truncate(e.Status, 40))}
		}
		if string(e.Metadata) == "null" {
			return nil, errNotInput{fmt.Sprintf("resume[%d]: metadata must be an object when given", i)}
		}
	}
	seen := make(map[string]bool, len(in.Messages))
	for i, m := range in.Messages {
		noContent := len(m.Content) == 0 || string(m.Content) == "null"
		switch {
		case m.Role == "" && m.ID == "" && noContent:
			return nil, errNotInput{fmt.Sprintf("messages[%d] must be a message object with its role and id", i)}
		case m.Role == "":
			return nil, errNotInput{fmt.Sprintf("messages[%d]: role is required", i)}
		case !knownRoles[m.Role]:
			return nil, errNotInput{fmt.Sprintf("messages[%d]: role %q is not an AG-UI role", i, truncate(m.Role, 40))}
		case m.ID == "":
			return nil, errNotInput{fmt.Sprintf("messages[%d]: id is required", i)}
		case seen[m.ID]:
			return nil, errNotInput{fmt.Sprintf("messages[%d]: id %q is used by an earlier message", i, truncate(m.ID, 80))}
		case (m.Role == RoleUser || m.Role == RoleTool) && noContent:
			return nil, errNotInput{fmt.Sprintf("messages[%d]: a %s message needs its content", i, m.Role)}
		case (m.Role == RoleUser || m.Role == RoleTool) && m.Content[0] != '"' && m.Content[0] != '[':
			return nil, errNotInput{fmt.Sprintf("messages[%d]: content must be a string or an array of content parts", i)}
		case m.Role == RoleTool && m.ToolCallID == "":
			return nil, errNotInput{fmt.Sprintf("messages[%d]: a tool message needs its toolCallId", i)}
		}
		for j, tc := range m.ToolCalls {
			if tc.Type != "function" {
				return nil, errNotInput{fmt.Sprintf(`messages[%d].toolCalls[%d]: type must be "function"`, i, j)}
			}
		}
		seen[m.ID] = true
	}
	return &in, nil
}

// requireStrings checks that every object of the array raw (tools or context, already
// decoded) has the members names as strings, which the schema requires and a Go string
// cannot tell from absent.
func requireStrings(raw json.RawMessage, array string, names ...string) error {
	if len(raw) == 0 {
		return nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return notInputAt(array, err)
	}
	for i, item := range items {
		for _, name := range names {
			var s string
			if v, ok := item[name]; !ok || json.Unmarshal(v, &s) != nil {
				return errNotInput{fmt.Sprintf("%s[%d]: %s is required (a string)", array, i, name)}
			}
		}
	}
	return nil
}

// notInput keeps the body's own read errors (the size limit) and marks the others as
// errNotInput, saying what is wrong in the input's terms (not Go's).
func notInput(err error) error { return notInputAt("", err) }

// notInputAt is notInput for an error of decoding the member at path of the body.
func notInputAt(path string, err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		te.Field = strings.TrimPrefix(te.Field, "RunAgentInput.") // the decoder's embedded struct
		if path == "" && te.Field == "" {
			path = "the body"
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		return errNotInput{"the body is empty: want a JSON object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errNotInput{"the body ends before its JSON object does"}
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return errNotInput{fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset)}
	}
	return errNotInput{jsonerr.Describe(path, err)}
}
