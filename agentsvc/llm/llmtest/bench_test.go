package llmtest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// discard is a ResponseWriter that keeps nothing, with a Flush like net/http's.
type discard struct {
	h       http.Header
	written int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { d.written += len(b); return len(b), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Flush()                      {}

// turnRequests are the two requests of a saturation turn of the load generator: a user
// message asking for 20 parallel calls, then the same with the calls and their results.
func turnRequests() (ask, results string) {
	const tool = `{"type":"function","function":{"name":"lookup","description":"Look up cars","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`
	head := `{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"tools":[` + tool + `],"messages":[` +
		`{"role":"system","content":"You are the page's assistant."},{"role":"user","content":"bench:p1:3 tools=20"}`
	var calls, outs []string
	for i := range 20 {
		calls = append(calls, fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"red cars\"}"}}`, i))
		outs = append(outs, fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"{\"cars\":[{\"id\":\"c1\",\"name\":\"Red car\",\"price\":21000}]}"}`, i))
	}
	return head + `]}`, head + `,{"role":"assistant","content":null,"tool_calls":[` + strings.Join(calls, ",") + `]},` + strings.Join(outs, ",") + `]}`
}

// BenchmarkServeTurn is the fake model's share of one saturation turn: both of its
// requests decoded, validated and answered as a stream (without the network).
func BenchmarkServeTurn(b *testing.B) {
	ask, results := turnRequests()
	s := llmtest.NewInMemory(llmtest.NoRecording(), llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.LastMessage().Role == "tool" {
			return llmtest.Step{Text: "Done: the lookup found 3 cars."}
		}
		calls := make([]llmtest.FakeCall, 20)
		for i := range calls {
			calls[i] = llmtest.FakeCall{Name: "lookup", Args: `{"q":"red cars"}`}
		}
		return llmtest.Step{ToolCalls: calls}
	}))
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		for _, body := range []string{ask, results} {
			r, _ := http.NewRequest(http.MethodPost, "http://model/v1/chat/completions", strings.NewReader(body))
			w := &discard{h: http.Header{}}
			s.ServeHTTP(w, r)
			if w.written == 0 {
				b.Fatal("nothing written")
			}
		}
	}
}
