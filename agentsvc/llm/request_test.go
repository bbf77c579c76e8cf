package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

func TestToolCallMarshalExtra(t *testing.T) {
	tc := toolCall{ID: "c1", Type: "function", Function: toolFunction{Name: "f", Arguments: "{}"},
		Extra: map[string]json.RawMessage{"z": json.RawMessage(`1`), "extra_content": json.RawMessage(`{"a":"<b>"}`), "id": json.RawMessage(`"shadow"`)}}
	b, err := json.Marshal(tc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"a":"\u003cb\u003e"},"z":1}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestRequestBody(t *testing.T) {
	b, err := requestBody("m", Request{
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: "s"},
			{Role: chat.RoleUser, Content: ""},
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: "f", Arguments: `{"a":1}`}}},
			{Role: chat.RoleTool, ToolCallID: "c", Content: "<ok> & done"},
			{Role: chat.RoleAssistant, Content: ""},
		},
		Tools: []chat.ToolDef{{Name: "f", Parameters: json.RawMessage(` {"type":"object"} `)}, {Name: "g", Description: "d"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":""},` +
		`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
		`{"role":"tool","content":"<ok> & done","tool_call_id":"c"},{"role":"assistant","content":""}],` +
		`"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}},` +
		`{"type":"function","function":{"name":"g","description":"d","parameters":{"type":"object","properties":{}}}}],` +
		`"stream":true,"stream_options":{"include_usage":true}}`
	if got := strings.TrimSpace(string(b)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for _, bad := range []Request{
		{Messages: []chat.Message{{Role: "narrator"}}},
		{Tools: []chat.ToolDef{{Name: "f", Parameters: json.RawMessage(`[1]`)}}},
		{Tools: []chat.ToolDef{{Name: "f", Parameters: json.RawMessage(`{"type":`)}}},
	} {
		if _, err := requestBody("m", bad); err == nil {
			t.Errorf("%+v: got no error", bad)
		}
	}
}

// TestRequestBodyTurnMarks: a message that only marks how a turn ended is never sent as
// it is; after a question it stands for the answer that never came (two user messages in a
// row read as one question), elsewhere it is left out.
func TestRequestBodyTurnMarks(t *testing.T) {
	mark := func(reason string) chat.Message {
		return chat.Message{Role: chat.RoleAssistant, End: &chat.TurnEnd{StopReason: reason}}
	}
	call := chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: "f", Arguments: `{}`}}}
	result := chat.Message{Role: chat.RoleTool, ToolCallID: "c", Content: "r"}
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want string
	}{
		{"interrupted question", []chat.Message{{Role: chat.RoleUser, Content: "a"}, mark("error"), {Role: chat.RoleUser, Content: "b"}},
			`user:a|assistant:(No answer: this turn failed or was interrupted before I answered.)|user:b`},
		{"cancelled question", []chat.Message{{Role: chat.RoleUser, Content: "a"}, mark("cancelled"), {Role: chat.RoleUser, Content: "b"}},
			`user:a|assistant:(No answer: the user stopped this turn before I answered.)|user:b`},
		{"limit reached", []chat.Message{{Role: chat.RoleUser, Content: "a"}, mark("max_iterations")},
			`user:a|assistant:(No answer: this turn reached its limit of steps before I answered.)`},
		{"after tool results", []chat.Message{{Role: chat.RoleUser, Content: "a"}, call, result, mark("error"), {Role: chat.RoleUser, Content: "b"}},
			`user:a|assistant:|tool:r|user:b`},
		{"on an answer", []chat.Message{{Role: chat.RoleUser, Content: "a"}, {Role: chat.RoleAssistant, Content: "x", End: &chat.TurnEnd{StopReason: "cancelled"}}},
			`user:a|assistant:x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := requestBody("m", Request{Messages: tc.msgs})
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Messages []struct{ Role, Content string } `json:"messages"`
			}
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range body.Messages {
				got = append(got, m.Role+":"+m.Content)
			}
			if g := strings.Join(got, "|"); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

// BenchmarkRequestEncode encodes the request of a conversation of three turns of 20 tool
// calls each (85 messages). openai-go's ChatCompletionNewParams took 224 µs, 166 KB and 2,145
// allocations for it (measured before the change); go test -run x -bench RequestEncode ./agentsvc/llm
func BenchmarkRequestEncode(b *testing.B) {
	req := Request{Messages: []chat.Message{{Role: chat.RoleSystem, Content: strings.Repeat("You are a helpful assistant. ", 20)}}}
	for i := range 3 {
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleUser, Content: "look up tools=20 please"})
		var calls []chat.ToolCall
		for j := range 20 {
			calls = append(calls, chat.ToolCall{ID: fmt.Sprintf("call_%d_%d", i, j), Name: "lookup", Arguments: `{"q":"something to look up"}`})
		}
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleAssistant, ToolCalls: calls})
		for j := range 20 {
			req.Messages = append(req.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprintf("call_%d_%d", i, j),
				Content: "<tool_output tool=\"lookup\" status=\"ok\">\nresult text here\n</tool_output>"})
		}
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleAssistant, Content: "Here is the answer."})
	}
	req.Tools = []chat.ToolDef{{Name: "lookup", Description: "Looks things up",
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := requestBody("gpt-4o-mini", req); err != nil {
			b.Fatal(err)
		}
	}
}
