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
