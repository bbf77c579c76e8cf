package agui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
)

// stockServer starts the manager of one Streamable HTTP MCP server "shop" with the tool
// stock, exposed to the web: the model sees shop__stock.
func stockServer(t *testing.T) *mcpservers.Manager {
	t.Helper()
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "shop", Transport: mcpservers.TransportStreamable, URL: httpMCPServer(t), Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return mgr
}

// TestServerToolArgumentsStreamAsTheyArrive: the model says a few words, then streams a call
// of a server tool and stalls in the middle of its arguments. The client already has the
// text message ended, TOOL_CALL_START (child of that message) and one TOOL_CALL_ARGS per
// piece the model sent: the arguments are not held until the response is complete.
func TestServerToolArgumentsStreamAsTheyArrive(t *testing.T) {
	args := `{"model":"Roadster","colour":"red"}` // 35 bytes: five 8-byte pieces
	f := newFixture(t, nil, stockServer(t), llmtest.Script(
		// 2 text chunks, the call's first chunk, then 3 of its 5 argument pieces.
		llmtest.Step{Text: "Checking stock.", ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "shop__stock", Args: args}}, FailAfterTokens: 6, Stall: true},
	))
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	body, _ := json.Marshal(RunAgentInput{ThreadID: "th-stream", RunID: "r1", Messages: []Message{user("u1", "stock?")}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, bytes.NewReader(body))
	req.Header.Set("Origin", site)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var evs []event
	pieces := 0
	readEvents(t, bufio.NewReader(resp.Body), func(e event) {
		evs = append(evs, e)
		if e.typ() == EventToolCallArgs {
			if pieces++; pieces == 3 {
				cancel() // all the model sent before it stalled: the client goes away
			}
		}
	})
	if ctx.Err() != nil && pieces < 3 {
		t.Fatalf("got %v before the wait ended, want 3 TOOL_CALL_ARGS while the model stalls", types(evs))
	}
	want := []string{EventRunStarted, EventTextMessageStart, EventTextMessageContent, EventTextMessageEnd, EventToolCallStart, EventToolCallArgs}
	if got := types(evs, EventToolCallArgs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	start := evs[slices.IndexFunc(evs, func(e event) bool { return e.typ() == EventToolCallStart })]
	if start.str("toolCallId") != "c1" || start.str("toolCallName") != "shop__stock" || start.str("parentMessageId") != evs[1].str("messageId") {
		t.Errorf("TOOL_CALL_START %v, want c1 shop__stock in message %s", start, evs[1].str("messageId"))
	}
	var got strings.Builder
	for _, e := range evs {
		if e.typ() == EventToolCallArgs {
			got.WriteString(e.str("delta"))
		}
	}
	if got.String() != args[:24] {
		t.Errorf("arguments so far %q, want %q", got.String(), args[:24])
	}
}

// TestStreamedCallEndedWhenTheModelFails: a model that fails in the middle of a server
// tool's arguments still gets the call ended before RUN_ERROR, so the stream stays valid.
func TestStreamedCallEndedWhenTheModelFails(t *testing.T) {
	f := newFixture(t, nil, stockServer(t), llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "shop__stock", Args: `{"model":"Roadster"}`}}, Status: 500, Message: "overloaded", FailAfterTokens: 2},
	))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-fail", RunID: "r1", Messages: []Message{user("u1", "stock?")}})
	want := []string{EventRunStarted, EventToolCallStart, EventToolCallArgs, EventToolCallEnd, EventRunError}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if n := len(f.fake.Requests()); n != 1 {
		t.Errorf("model calls %d, want 1 (not retried once arguments were shown)", n)
	}
}

// TestFrontendAndServerCallsInOneResponse: with a server call and a frontend call in one
// response (their chunks interleaved), the server call streams and gets its result; the
// frontend call is sent whole once its arguments validated, and the run hands it over.
func TestFrontendAndServerCallsInOneResponse(t *testing.T) {
	f := newFixture(t, nil, stockServer(t), llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{
			{ID: "s1", Name: "shop__stock", Args: `{"model":"Roadster"}`},
			{ID: "f1", Name: "set_color", Args: `{"color":"green"}`},
		}},
	))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-both", RunID: "r1", Messages: []Message{user("u1", "both")}, Tools: []Tool{colorTool}})
	byCall := map[string][]string{}
	args := map[string][]string{}
	for _, e := range evs {
		if id := e.str("toolCallId"); id != "" {
			byCall[id] = append(byCall[id], e.typ())
			if e.typ() == EventToolCallArgs {
				args[id] = append(args[id], e.str("delta"))
			}
		}
	}
	if got := byCall["f1"]; !slices.Equal(got, []string{EventToolCallStart, EventToolCallArgs, EventToolCallEnd}) {
		t.Errorf("frontend call events %v, want start, one args, end", got)
	}
	if !slices.Equal(args["f1"], []string{`{"color":"green"}`}) {
		t.Errorf("frontend call arguments %q, want them whole", args["f1"])
	}
	if len(args["s1"]) < 2 || strings.Join(args["s1"], "") != `{"model":"Roadster"}` {
		t.Errorf("server call arguments %q, want several deltas", args["s1"])
	}
	if got := byCall["s1"]; got[0] != EventToolCallStart || got[len(got)-2] != EventToolCallEnd || got[len(got)-1] != EventToolCallResult {
		t.Errorf("server call events %v, want start, args…, end, result", got)
	}
	last := evs[len(evs)-1]
	outcome, _ := last["outcome"].(map[string]any)
	if pending, _ := outcome["pendingToolCallIds"].([]any); last.typ() != EventRunFinished || len(pending) != 1 || pending[0] != "f1" {
		t.Errorf("last event %v, want RUN_FINISHED pending f1", last)
	}
}
