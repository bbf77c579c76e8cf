package agui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
)

// meetServer starts the manager of one MCP server "meet" whose tool wait pairs its calls: the
// first of a pair waits for the second, and both answer "met" ("alone" if the second never
// came). Two calls of it in one response say "met" only when they run in parallel.
func meetServer(t *testing.T) *mcpservers.Manager {
	t.Helper()
	var mu sync.Mutex
	var first chan struct{} // closed by the second call of a pair
	srv := mcp.NewServer(&mcp.Implementation{Name: "meet-server", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wait", Description: "Waits for the other call.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer := func(text string) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			}
			mu.Lock()
			if first != nil {
				close(first)
				first = nil
				mu.Unlock()
				return answer("met")
			}
			ch := make(chan struct{})
			first = ch
			mu.Unlock()
			select {
			case <-ch:
				return answer("met")
			case <-time.After(waitLimit / 3):
			case <-ctx.Done():
			}
			mu.Lock()
			if first == ch {
				first = nil
			}
			mu.Unlock()
			return answer("alone")
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "meet", Transport: mcpservers.TransportStreamable, URL: hs.URL, Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return mgr
}

// callEvents groups the tool-call events of a run by call id, in the order received.
func callEvents(evs []event) (byCall map[string][]string, starts []string) {
	byCall = map[string][]string{}
	for _, e := range evs {
		id := e.str("toolCallId")
		if id == "" {
			continue
		}
		if e.typ() == EventToolCallStart {
			starts = append(starts, id)
		}
		if t := e.typ(); len(byCall[id]) == 0 || byCall[id][len(byCall[id])-1] != t {
			byCall[id] = append(byCall[id], t)
		}
	}
	return byCall, starts
}

func pendingOf(e event) []string {
	outcome, _ := e["outcome"].(map[string]any)
	list, _ := outcome["pendingToolCallIds"].([]any)
	var out []string
	for _, id := range list {
		s, _ := id.(string)
		out = append(out, s)
	}
	return out
}

// TestCallsShownInTheModelsOrder: the frontend calls of one response reach the client in the
// model's order (TOOL_CALL_START and pendingToolCallIds), run after run, although each call
// runs in a goroutine of its own; the server calls between them still run in parallel.
func TestCallsShownInTheModelsOrder(t *testing.T) {
	step := func(run int) llmtest.Step {
		var calls []llmtest.FakeCall
		for i, name := range []string{"set_color", "meet__wait", "set_color", "set_color", "meet__wait", "set_color", "set_color"} {
			calls = append(calls, llmtest.FakeCall{ID: fmt.Sprintf("r%d-%c", run, 'A'+i), Name: name, Args: `{"color":"red"}`})
			if name == "meet__wait" {
				calls[i].Args = `{}`
			}
		}
		return llmtest.Step{ToolCalls: calls}
	}
	const runs = 8
	var steps []llmtest.Step
	for run := range runs {
		steps = append(steps, step(run))
	}
	f := newFixture(t, nil, meetServer(t), llmtest.Script(steps...))
	for run := range runs {
		_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: fmt.Sprintf("th-order-%d", run), RunID: "r", Messages: []Message{user("u1", "go")}, Tools: []Tool{colorTool}})
		id := func(c byte) string { return fmt.Sprintf("r%d-%c", run, c) }
		frontend := []string{id('A'), id('C'), id('D'), id('F'), id('G')}
		byCall, starts := callEvents(evs)
		var shown []string
		for _, s := range starts {
			if slices.Contains(frontend, s) {
				shown = append(shown, s)
			}
		}
		if !slices.Equal(shown, frontend) {
			t.Errorf("run %d: frontend calls started in the order %v, want %v", run, shown, frontend)
		}
		for _, c := range frontend {
			if got := byCall[c]; !slices.Equal(got, []string{EventToolCallStart, EventToolCallArgs, EventToolCallEnd}) {
				t.Errorf("run %d: call %s got %v, want start, args, end together", run, c, got)
			}
		}
		last := evs[len(evs)-1]
		if got := pendingOf(last); last.typ() != EventRunFinished || !slices.Equal(got, frontend) {
			t.Errorf("run %d: last event %v, want RUN_FINISHED pending %v", run, last, frontend)
		}
		for _, e := range evs {
			if e.typ() == EventToolCallResult && e.str("content") != "met" {
				t.Errorf("run %d: server call %s answered %q, want met (the two run in parallel)", run, e.str("toolCallId"), e.str("content"))
			}
		}
		// The stored thread holds the calls in the same order.
		for _, m := range snapshotMessages(t, f, fmt.Sprintf("th-order-%d", run)) {
			var ids []string
			for _, tc := range m.ToolCalls {
				ids = append(ids, tc.ID)
			}
			if len(ids) > 0 && !slices.Equal(ids, []string{id('A'), id('B'), id('C'), id('D'), id('E'), id('F'), id('G')}) {
				t.Errorf("run %d: stored calls %v, want the model's order", run, ids)
			}
		}
	}
}

// TestCallsPastTheLimitGetTheirResult: the server calls past the turn's limit of tool calls
// were shown as they streamed; each gets TOOL_CALL_RESULT saying it was not run, so none is
// left for the client as if it were a frontend call, and RUN_FINISHED says the guard stopped
// the run. A frontend call within the limit is still pending.
func TestCallsPastTheLimitGetTheirResult(t *testing.T) {
	const limit = 3
	for _, tc := range []struct {
		name     string
		frontend bool
	}{{"server calls only", false}, {"with a frontend call", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []llmtest.FakeCall
			if tc.frontend {
				calls = append(calls, llmtest.FakeCall{ID: "f1", Name: "set_color", Args: `{"color":"red"}`})
			}
			for i := len(calls); i < limit+2; i++ {
				calls = append(calls, llmtest.FakeCall{ID: fmt.Sprintf("s%d", i+1), Name: "shop__stock", Args: `{"model":"Roadster"}`})
			}
			f := newFixtureWith(t, nil, stockServer(t), func(o *Options) { o.Limits = loop.Limits{MaxToolCalls: limit} },
				llmtest.Script(llmtest.Step{ToolCalls: calls}))
			_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-limit", RunID: "r", Messages: []Message{user("u1", "many")}, Tools: []Tool{colorTool}})
			byCall, _ := callEvents(evs)
			results := map[string]string{}
			for _, e := range evs {
				if e.typ() == EventToolCallResult {
					results[e.str("toolCallId")] = e.str("content")
				}
			}
			for i, c := range calls {
				if c.Name != "shop__stock" {
					continue
				}
				want := "3 in stock"
				if i >= limit {
					want = fmt.Sprintf("not run: this turn reached its limit of %d tool calls", limit)
				}
				if got := byCall[c.ID]; len(got) == 0 || got[len(got)-1] != EventToolCallResult || results[c.ID] != want {
					t.Errorf("call %s: events %v, result %q; want it to end with TOOL_CALL_RESULT %q", c.ID, got, results[c.ID], want)
				}
			}
			last := evs[len(evs)-1]
			result, _ := last["result"].(map[string]any)
			if last.typ() != EventRunFinished || result["stopReason"] != "max_iterations" {
				t.Errorf("last event %v, want RUN_FINISHED with result.stopReason max_iterations", last)
			}
			var wantPending []string
			if tc.frontend {
				wantPending = []string{"f1"}
			}
			if got := pendingOf(last); !slices.Equal(got, wantPending) {
				t.Errorf("pendingToolCallIds %v, want %v", got, wantPending)
			}
		})
	}
}

// TestToolMessageErrorAndContent: a tool message with both content and error gives the model
// both.
func TestToolMessageErrorAndContent(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call-1", Name: "set_color", Args: `{"color":"red"}`}}},
		llmtest.Step{Text: "It failed."},
	))
	in := RunAgentInput{ThreadID: "th-err", RunID: "r1", Messages: []Message{user("u1", "red")}, Tools: []Tool{colorTool}}
	f.run(t, t.Context(), site, in)
	in.RunID = "r2"
	in.Messages = append(snapshotMessages(t, f, "th-err"), Message{ID: "t1", Role: RoleTool, ToolCallID: "call-1", Content: stringContent("tried to set red"), Error: "device offline"})
	f.run(t, t.Context(), site, in)
	last := f.fake.Requests()[1].LastMessage()
	if last.Role != "tool" || !strings.Contains(last.Content, "tried to set red") || !strings.Contains(last.Content, "device offline") || !strings.Contains(last.Content, `status="error"`) {
		t.Errorf("the model got %q, want the content and the error, marked as an error", last.Content)
	}
}
