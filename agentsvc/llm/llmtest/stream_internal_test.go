package llmtest

import (
	"fmt"
	"testing"

	json "github.com/segmentio/encoding/json"
)

// The chunks are written by hand; they must be what json.Marshal makes of the same chunk
// as maps (keys sorted, HTML escaped), whatever the names, ids, texts and arguments hold.
func TestHandWrittenChunksAreMarshalledMaps(t *testing.T) {
	odd := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "line\nbreak\ttab", "é ü 漢字 🚗", "\u2028\u2029", "\x01\x1f", "a/b"}
	for _, s := range odd {
		srv := newServer(nil)
		req := RecordedRequest{Model: "m-" + s, IncludeUsage: len(s)%2 == 0}
		step := Step{Text: "say " + s + " now", ToolCalls: []FakeCall{{ID: "id-" + s, Name: "tool" + s, Args: `{"q":` + string(mustJSON(s)) + `}`}}}
		a, err := srv.answer(req, step)
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]any
		for _, d := range splitText(step.Text) {
			want = append(want, map[string]any{"content": d})
		}
		c := a.calls[0]
		want = append(want, map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}}})
		for _, p := range splitArgs(c.Args) {
			want = append(want, map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": p}}}})
		}
		if len(a.deltas) != len(want) {
			t.Fatalf("%q: %d deltas, want %d", s, len(a.deltas), len(want))
		}
		f := a.frame(req)
		for i, d := range want {
			for _, finish := range []string{"", "tool_calls"} {
				chunk := map[string]any{
					"id": a.id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
					"system_fingerprint": "fp_llmtest",
					"choices":            []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": nil}},
				}
				if finish != "" {
					chunk["choices"].([]any)[0].(map[string]any)["finish_reason"] = finish
				}
				if req.IncludeUsage {
					chunk["usage"] = nil
				}
				got := string(f.event(a.deltas[i], finish))
				if w := fmt.Sprintf("data: %s\n\n", mustJSON(chunk)); got != w {
					t.Errorf("%q, delta %d, finish %q:\n got %s\nwant %s", s, i, finish, got, w)
				}
			}
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
