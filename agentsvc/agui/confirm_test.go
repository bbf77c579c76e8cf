package agui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
)

// TestDestructiveServerToolRefused: an AG-UI run has no way to ask the visitor to confirm, so
// a server tool marked destructiveHint: true is refused with a tool error that says why, and
// never runs unconfirmed (issue 36, item 5); a harmless server tool of the same server runs.
func TestDestructiveServerToolRefused(t *testing.T) {
	var wipes, reads atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "admin", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wipe", Description: "Deletes every order.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wipes.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all orders deleted"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "count", Description: "Counts orders.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reads.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "12 orders"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "admin", Transport: mcpservers.TransportStreamable, URL: hs.URL, Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}

	f := newFixture(t, nil, mgr, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c_wipe", Name: "admin__wipe", Args: `{}`}, {ID: "c_count", Name: "admin__count", Args: `{}`}}},
		llmtest.Step{Text: "I could not delete them."},
	))
	status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-wipe", RunID: "r1", Messages: []Message{user("u1", "delete all orders")}})
	if status != http.StatusOK || evs[len(evs)-1].typ() != EventRunFinished {
		t.Fatalf("status %d, events %v", status, types(evs))
	}
	if n, m := wipes.Load(), reads.Load(); n != 0 || m != 1 {
		t.Errorf("the destructive tool ran %d times, the harmless one %d; want 0 and 1", n, m)
	}
	results := map[string]string{}
	for _, e := range evs {
		if e.typ() == EventToolCallResult {
			results[e.str("toolCallId")] = e.str("content")
		}
	}
	if r := results["c_wipe"]; !strings.Contains(r, "needs the visitor's confirmation") || !strings.Contains(r, "AG-UI") {
		t.Errorf("TOOL_CALL_RESULT of admin__wipe %q, want a refusal that says why", r)
	}
	var forModel string
	for _, m := range mustLoad(t, f, "th-wipe") {
		if m.Role == chat.RoleTool && m.ToolCallID == "c_wipe" {
			forModel = m.Content
		}
	}
	if !strings.Contains(forModel, `status="error"`) || strings.Contains(forModel, "deleted") {
		t.Errorf("the model's answer for admin__wipe %q, want an error, the tool not run", forModel)
	}
}
