package llm_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// toolPiece is one call of Request.OnToolDelta.
type toolPiece struct {
	index          int
	id, name, args string
}

// TestOnToolDeltaStreamsArguments: the fake model streams two parallel calls, each first
// chunk with id and name and then 8-byte argument pieces, interleaved round-robin (as
// OpenAI streams parallel calls, each chunk naming its call's index). The callback sees every
// piece in the order sent, and each call's pieces join to its arguments.
func TestOnToolDeltaStreamsArguments(t *testing.T) {
	args1 := `{"color":"red","max_price":30000,"brands":["VW","Fiat"]}`
	args2 := `{"city":"Zürich, Schweiz"}`
	srv := llmtest.NewServer(t, llmtest.Step{
		Text: "Let me look.",
		ToolCalls: []llmtest.FakeCall{
			{ID: "call_1", Name: "filter_cars", Args: args1},
			{ID: "call_2", Name: "get_weather", Args: args2},
		},
	})
	m, _ := newModel(srv, llm.Options{})
	var pieces []toolPiece
	var textBefore []string // text deltas seen before the first tool piece
	req := hello
	req.OnToolDelta = func(index int, id, name, args string) {
		pieces = append(pieces, toolPiece{index, id, name, args})
	}
	resp, err := m.Stream(t.Context(), req, func(d string) {
		if len(pieces) == 0 {
			textBefore = append(textBefore, d)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(textBefore, ""); got != "Let me look." {
		t.Errorf("text before the first tool piece: got %q, want %q", got, "Let me look.")
	}
	// The first piece of each call carries "" (its first chunk has no arguments), then
	// the calls alternate.
	if len(pieces) < 4 {
		t.Fatalf("got %d pieces, want the arguments split across several: %+v", len(pieces), pieces)
	}
	if pieces[0] != (toolPiece{0, "call_1", "filter_cars", ""}) || pieces[1] != (toolPiece{1, "call_2", "get_weather", ""}) {
		t.Errorf("first pieces: got %+v %+v, want each call announced with no arguments", pieces[0], pieces[1])
	}
	joined := map[string]string{}
	count := map[string]int{}
	for _, p := range pieces {
		want := map[string]toolPiece{"call_1": {0, "call_1", "filter_cars", ""}, "call_2": {1, "call_2", "get_weather", ""}}[p.id]
		if p.index != want.index || p.name != want.name {
			t.Errorf("piece %+v: index or name do not match call %q", p, p.id)
		}
		joined[p.id] += p.args
		count[p.id]++
	}
	if joined["call_1"] != args1 || joined["call_2"] != args2 {
		t.Errorf("joined arguments: got %q, want %q and %q", joined, args1, args2)
	}
	if count["call_1"] < 3 || count["call_2"] < 3 {
		t.Errorf("pieces per call: got %v, want the arguments in several pieces", count)
	}
	for i, c := range resp.ToolCalls {
		if c.Arguments != joined[c.ID] {
			t.Errorf("response call %d: got %q, want the joined pieces %q", i, c.Arguments, joined[c.ID])
		}
	}
}

// TestOnToolDeltaHoldsPiecesUntilNamed: pieces of arguments that arrive before the call's
// name (a provider may send the id and a first piece, then the name) are given with the
// name, joined, then the later pieces one by one. The server writes the chunks of the
// OpenAI streaming format (chat.completion.chunk, delta.tool_calls[].index/id/function).
func TestOnToolDeltaHoldsPiecesUntilNamed(t *testing.T) {
	chunks := []string{
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}`,
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"arguments":"{\"a\""}}]}}]}`,
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1"}}]}}]}`,
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}`,
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
	}))
	defer hs.Close()
	m := llm.NewOpenAI(llm.Options{BaseURL: hs.URL, HTTPClient: hs.Client(), APIKey: "k", Model: "m", Provider: llm.ProviderCustom})
	var pieces []toolPiece
	req := hello
	req.OnToolDelta = func(index int, id, name, args string) {
		pieces = append(pieces, toolPiece{index, id, name, args})
	}
	resp, err := m.Stream(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []toolPiece{{0, "c1", "f", `{"a":1`}, {0, "c1", "f", "}"}}
	if len(pieces) != len(want) || pieces[0] != want[0] || pieces[1] != want[1] {
		t.Errorf("pieces: got %+v, want %+v", pieces, want)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"a":1}` {
		t.Errorf("tool calls: got %+v", resp.ToolCalls)
	}
}

// TestToolDeltaNotRetried: a stream cut after a call's pieces reached OnToolDelta is not
// retried (the caller already showed them), unlike a cut before (TestCutBeforeTextIsRetried).
func TestToolDeltaNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_cut", Name: "f", Args: `{"a":"bbbbbbbbbbbbbbbb"}`}}, FailAfterTokens: 2},
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_ok", Name: "f", Args: `{"a":1}`}}},
	)
	m, rec := newModel(srv, llm.Options{})
	var pieces []toolPiece
	req := hello
	req.OnToolDelta = func(index int, id, name, args string) {
		pieces = append(pieces, toolPiece{index, id, name, args})
	}
	_, err := m.Stream(t.Context(), req, nil)
	llmError(t, err)
	if n := len(srv.Requests()); n != 1 || len(rec.Waits()) != 0 {
		t.Errorf("requests %d waits %v: the call was retried after tool-call pieces were streamed", n, rec.Waits())
	}
	if len(pieces) != 2 || pieces[0].id != "call_cut" || pieces[1].args != `{"a":"bb` {
		t.Errorf("pieces: got %+v, want the cut call's first two", pieces)
	}
}
