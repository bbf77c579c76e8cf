package agentsvc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// TestToolOutcomeKinds: each way a page tool call ends is one kind, and the tool_result
// event the visitor sees, the tool message the model gets and the metrics' outcome label all
// say the same: a tool the model was never offered is an unknown tool (it was counted as a
// tool error before the outcomes were typed), not a failure of the page.
func TestToolOutcomeKinds(t *testing.T) {
	model, fake := openAIModel(t, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{
			{ID: "c1", Name: "echo", Args: `{"text":"hi"}`},
			{ID: "c2", Name: "echo", Args: `{"text":5}`},
			{ID: "c3", Name: "nope", Args: `{}`},
			{ID: "c4", Name: "fails", Args: `{}`},
		}},
		llmtest.Step{Text: "done"},
	))
	ts := newTestServer(t, model, nil)
	fails := pageTestTool{
		tool: wire.PageTool{Name: "fails", InputSchema: []byte(`{"type":"object"}`)},
		fn:   func(context.Context, map[string]any) (any, error) { return nil, errors.New("out of stock") },
	}
	page := newFakePage(t, ts, testOrigin, echoTool(), fails)
	page.session(wire.SessionParams{})
	if res, err := page.chat("go"); err != nil || res.StopReason != wire.StopEnd {
		t.Fatalf("got %+v %v, want a finished turn", res, err)
	}

	tests := []struct {
		callID, label string
		isError       bool
		text          string // the start of the text
	}{
		{"c1", "ok", false, "echo: hi"},
		{"c2", "invalid_args", true, "invalid arguments:"},
		{"c3", "unknown_tool", true, `unknown tool "nope"`},
		{"c4", "tool_error", true, ""},
	}
	results := map[string]event{}
	for _, e := range page.eventsUntil(wire.EventTurnEnd) {
		if e.Type == wire.EventToolResult {
			results[e.CallID] = e
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	toModel := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			toModel[m.ToolCallID] = m.Content
		}
	}
	labels := map[string]float64{}
	for _, tt := range tests {
		labels[tt.label]++
		e, ok := results[tt.callID]
		if !ok {
			t.Errorf("%s: no tool_result event", tt.callID)
			continue
		}
		if e.IsError != tt.isError || !strings.HasPrefix(e.Text, tt.text) {
			t.Errorf("%s: got tool_result isError=%v %q, want isError=%v %q…", tt.callID, e.IsError, e.Text, tt.isError, tt.text)
		}
		status := `status="ok"`
		if tt.isError {
			status = `status="error"`
		}
		if got := toModel[tt.callID]; !strings.Contains(got, status) || !strings.Contains(got, e.Text) {
			t.Errorf("%s: the model got %q, want the visitor's text %q with %s", tt.callID, got, e.Text, status)
		}
	}
	want := map[string]float64{}
	for label, n := range labels {
		want[`byomcp_tool_calls_total{kind="page",outcome="`+label+`"}`] = n
	}
	wantMetrics(t, ts.Server, want)
}
