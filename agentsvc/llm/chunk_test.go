package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

func TestToolCallDeltaExtra(t *testing.T) {
	for _, tc := range []struct {
		in    string
		extra map[string]string
	}{
		{`{"index":0,"function":{"arguments":"{\"id\":"}}`, nil},
		{`{"index":1,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}`, nil},
		{`{ "index" : 0 , "id" : "a\"b" }`, nil},
		{`{"index":0,"extra_content":{"google":{"id":"x","thought_signature":"c2ln"}}}`,
			map[string]string{"extra_content": `{"google":{"id":"x","thought_signature":"c2ln"}}`}},
		{`{"index":0,"function":{"name":"f"},"extra_content":null}`, nil},
		{`{"id":"c","weird\"key":[1,{"a":"}"}],"index":2}`, map[string]string{`weird"key`: `[1,{"a":"}"}]`}},
	} {
		var d toolCallDelta
		if err := json.Unmarshal([]byte(tc.in), &d); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got := map[string]string{}
		for k, v := range d.Extra {
			got[k] = string(v)
		}
		want := tc.extra
		if want == nil {
			want = map[string]string{}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: extra %v, want %v", tc.in, got, want)
		}
	}
	var d toolCallDelta
	if err := json.Unmarshal([]byte(`{"index":3,"id":"call_9","function":{"name":"lookup","arguments":"{\"q\""}}`), &d); err != nil {
		t.Fatal(err)
	}
	if d.Index != 3 || d.ID != "call_9" || d.Function.Name != "lookup" || d.Function.Arguments != `{"q"` {
		t.Fatalf("decoded %+v", d)
	}
}

// toolCallChunk is a typical tool-call piece of a stream.
var toolCallChunk = []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764400000,"model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{\"q\":\"vi"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`)

// BenchmarkChunkDecode compares the chunk type with the SDK's ChatCompletionChunk, which it
// replaces (go test -run x -bench ChunkDecode -benchmem ./agentsvc/llm).
func BenchmarkChunkDecode(b *testing.B) {
	b.Run("chunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c chunk
			if err := decodeChunk(ssestream.Event{Data: toolCallChunk}, &c); err != nil || len(c.Choices[0].Delta.ToolCalls) != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("openai.ChatCompletionChunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c openai.ChatCompletionChunk
			if err := json.Unmarshal(toolCallChunk, &c); err != nil || len(c.Choices[0].Delta.ToolCalls) != 1 {
				b.Fatal(err)
			}
		}
	})
}

func TestDecodeChunkShapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, `0:"hi"[] `},
		{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},{"index":1,"id":"b","function":{"name":"g"}}]},"finish_reason":null}]}`,
			`0:""[0 a f { 1 b g  ] `},
		{`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"},{"index":1,"delta":{"tool_calls":[{"index":0,"id":"c"}]}}]}`,
			`0:"x"[] stop 1:""[0 c   ] `},
		{`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`, ``},
	} {
		var c chunk
		if err := decodeChunk(ssestream.Event{Data: []byte(tc.in)}, &c); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var got strings.Builder
		for _, ch := range c.Choices {
			fmt.Fprintf(&got, "%d:%q[", ch.Index, ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				fmt.Fprintf(&got, "%d %s %s %s ", d.Index, d.ID, d.Function.Name, d.Function.Arguments)
			}
			fmt.Fprintf(&got, "] %s", ch.FinishReason)
			if ch.FinishReason != "" {
				got.WriteString(" ")
			}
		}
		if got.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got.String(), tc.want)
		}
	}
	var c chunk
	err := decodeChunk(ssestream.Event{Data: []byte(`{"error":{"message":"boom","code":500}}`)}, &c)
	var se *ssestream.StreamError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "boom") {
		t.Fatalf("error event: got %v", err)
	}
}
