package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// httpMCPServer serves one tool over Streamable HTTP and counts the calls that reach it.
func httpMCPServer(t *testing.T, tool, answer string) (url string, calls *atomic.Int32) {
	t.Helper()
	calls = new(atomic.Int32)
	srv := mcp.NewServer(&mcp.Implementation{Name: tool + "-server", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: tool, Description: "Answers " + answer + ".", InputSchema: json.RawMessage(`{"type":"object","properties":{"item":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, calls
}

// TestPageSeesOnlyWebExposedServerTools runs a page conversation with two server-side MCP
// servers: "shop" exposed to the web and "vault" to the terminal only. The page's model
// must be offered the page's tools and shop__stock, never vault's tool, and a call of
// vault's tool by its name must not reach the vault server.
func TestPageSeesOnlyWebExposedServerTools(t *testing.T) {
	shopURL, shopCalls := httpMCPServer(t, "stock", "3 cars in stock")
	vaultURL, vaultCalls := httpMCPServer(t, "read_secret", "the secret")
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "shop", Transport: mcpservers.TransportStreamable, URL: shopURL, Expose: []string{mcpservers.AudienceWeb}},
		{Name: "vault", Transport: mcpservers.TransportStreamable, URL: vaultURL, Expose: []string{mcpservers.AudienceCLI}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range mgr.Status() {
		if st.State != mcpservers.StateReady || st.Tools != 1 {
			t.Fatalf("server %s: %+v, want ready with its tool", st.Name, st)
		}
	}

	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{
				call("c_stock", "shop__stock", `{"item":"Model 3"}`),
				call("c_secret", "vault__read_secret", `{}`),
			}}, nil
		}
		return &llm.Response{Text: "There are 3."}, nil
	}}
	ts := newTestServer(t, model, func(c *Config) { c.ServerTools = mgr })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}})
	res, err := page.chat("how many Model 3 are in stock?")
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != wire.StopEnd || res.Text != "There are 3." {
		t.Errorf("turn: got %+v, want the model's answer", res)
	}

	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	for i, req := range reqs {
		var names []string
		for _, d := range req.Tools {
			names = append(names, d.Name)
		}
		slices.Sort(names)
		if want := []string{"echo", "shop__stock"}; !slices.Equal(names, want) {
			t.Errorf("request %d offers %v, want %v", i, names, want)
		}
	}

	results := map[string]event{}
	for _, e := range page.eventsUntil(wire.EventTurnEnd) {
		if e.Type == wire.EventToolResult {
			results[e.CallID] = e
		}
	}
	if r := results["c_stock"]; r.IsError || r.Text != "3 cars in stock" || r.Name != "shop__stock" {
		t.Errorf("shop__stock result: got %+v, want 3 cars in stock", r)
	}
	if r := results["c_secret"]; !r.IsError || !strings.Contains(r.Text, `unknown tool "vault__read_secret"`) {
		t.Errorf("vault__read_secret result: got %+v, want an unknown-tool error", r)
	}
	if n := vaultCalls.Load(); n != 0 {
		t.Errorf("the terminal-only server got %d calls from the page's model, want 0", n)
	}
	if n := shopCalls.Load(); n != 1 {
		t.Errorf("the web server got %d calls, want 1", n)
	}
	if calls := page.callsMade(); len(calls) != 0 {
		t.Errorf("server tool calls reached the page: %+v", calls)
	}
	var secretMsg string
	for _, m := range reqs[1].Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == "c_secret" {
			secretMsg = m.Content
		}
	}
	if !strings.Contains(secretMsg, `status="error"`) || strings.Contains(secretMsg, "the secret") {
		t.Errorf("the model's answer for c_secret: got %q, want an error without the secret", secretMsg)
	}

	// The audience check below the session's own: the web audience cannot call vault.
	if _, err := mgr.Call(ctx, mcpservers.AudienceWeb, "vault__read_secret", json.RawMessage(`{}`)); !errors.Is(err, mcpservers.ErrNotExposed) {
		t.Errorf("Call(web, vault__read_secret): err = %v, want ErrNotExposed", err)
	}
	if n := vaultCalls.Load(); n != 0 {
		t.Errorf("the terminal-only server got %d calls, want 0", n)
	}
}
