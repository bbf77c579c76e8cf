package agentsvc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// siteServer serves one site for testOrigin from a sites.json body.
func siteServer(t *testing.T, model llm.Model, sitesJSON string) (*testServer, *sites.Registry) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(path, []byte(sitesJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	var srv *Server
	reg, err := sites.Open(path, sites.Options{OnRefuse: func() { srv.CountRefused("token_budget") }})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, model, func(c *Config) { c.Sites = reg.Lookup })
	srv = ts.Server
	return ts, reg
}

// gathered returns the value of a counter of /metrics with the given label value.
func gathered(t *testing.T, s *Server, name, label, value string) float64 {
	t.Helper()
	mfs, err := s.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestSiteBudgetRefusesTurn: once a conversation used its tokens for the hour, its next turn
// is refused with wire.CodeOverBudget and a message for the visitor, counted in
// byomcp_refused_total{reason="token_budget"}; the model is not called.
func TestSiteBudgetRefusesTurn(t *testing.T) {
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: "Hello there.", Usage: chat.Usage{PromptTokens: 90, CompletionTokens: 20, TotalTokens: 110}}, nil
	}}
	ts, reg := siteServer(t, model, `{"sites": [{"name": "shop", "origins": ["`+testOrigin+`"], "budget": {"sessionTokensPerHour": 100}}]}`)
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	if res, err := page.chat("hi"); err != nil || res.StopReason != wire.StopEnd {
		t.Fatalf("first turn: %+v, %v; want it to end", res, err)
	}
	_, err := page.chat("and again")
	var rpcErr *wsrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeOverBudget {
		t.Fatalf("second turn: got %v, want error %d", err, wire.CodeOverBudget)
	}
	if !strings.Contains(rpcErr.Message, "usage limit") {
		t.Errorf("got message %q, want one that tells the visitor about the usage limit", rpcErr.Message)
	}
	if n := len(model.requests()); n != 1 {
		t.Errorf("the model was called %d times, want 1 (the refused turn must not reach it)", n)
	}
	if got := gathered(t, ts.Server, "byomcp_refused_total", "reason", "token_budget"); got != 1 {
		t.Errorf("byomcp_refused_total{reason=token_budget} = %v, want 1", got)
	}
	if _, hour := reg.Used("shop", sess.SessionID); hour != 110 {
		t.Errorf("tokens counted for the conversation = %d, want 110", hour)
	}
	// Another conversation of the site is not refused.
	other := newFakePage(t, ts, testOrigin, echoTool())
	other.session(wire.SessionParams{})
	if _, err := other.chat("hi"); err != nil {
		t.Errorf("another conversation: %v", err)
	}
}

// TestSiteBudgetStopsTurnMidway: a turn that goes over the budget between two model calls
// ends with an error event carrying the visitor's message.
func TestSiteBudgetStopsTurnMidway(t *testing.T) {
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{ToolCalls: []chat.ToolCall{call("c1", "echo", `{"text":"x"}`)}, Usage: chat.Usage{PromptTokens: 500, TotalTokens: 500}}, nil
	}}
	ts, _ := siteServer(t, model, `{"sites": [{"name": "shop", "origins": ["`+testOrigin+`"], "budget": {"siteTokensPerDay": 400}}]}`)
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	res, err := page.chat("go")
	if err != nil || res.StopReason != wire.StopError {
		t.Fatalf("got %+v, %v; want stopReason error", res, err)
	}
	var msg string
	for _, e := range page.eventsUntil(wire.EventTurnEnd) {
		if e.Type == wire.EventError {
			msg = e.Message
		}
	}
	if !strings.Contains(msg, "usage limit for today") {
		t.Errorf("error event %q, want the site's usage limit message", msg)
	}
	if n := len(model.requests()); n != 1 {
		t.Errorf("model calls = %d, want 1", n)
	}
}

// TestSiteSettingsReachTheTurn: the site's instructions and locale are the system prompt,
// its guards stop the loop, its confirm policy marks the tool.
func TestSiteSettingsReachTheTurn(t *testing.T) {
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{ToolCalls: []chat.ToolCall{call("c"+string(rune('a'+n)), "echo", `{"text":"x"}`)}}, nil
	}}
	ts, _ := siteServer(t, model, `{"sites": [{"name": "shop", "origins": ["`+testOrigin+`"], "systemPrompt": "You sell cars.", "locale": "de",
		"guards": {"maxModelCalls": 2}, "confirmTools": ["echo"]}]}`)
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}})
	res, err := page.chat("go")
	if err != nil || res.StopReason != wire.StopMaxIterations {
		t.Fatalf("got %+v, %v; want max_iterations after the site's 2 model calls", res, err)
	}
	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	sys := reqs[0].Messages[0]
	if sys.Role != chat.RoleSystem || !strings.HasPrefix(sys.Content, "You sell cars.") || !strings.Contains(sys.Content, "language is de") ||
		!strings.Contains(sys.Content, `The visitor is on the web page "Cars" (http://localhost:3000/cars).`) {
		t.Errorf("system message %+v, want the site's prompt, locale and the visitor's page", sys)
	}
	calls := page.callsMade()
	if len(calls) == 0 || !strings.Contains(string(jsonString(calls[0].Meta)), `"byomcp/confirm":true`) {
		t.Errorf("tools/call meta = %s, want byomcp/confirm (the site's confirmTools)", jsonString(calls[0].Meta))
	}
}

// TestOwnPromptIsToldThePage: the operator's --system-prompt is told the page the visitor is
// on, and the page it moves to (the default instructions name it in their first sentence).
func TestOwnPromptIsToldThePage(t *testing.T) {
	model := textModel("ok")
	ts := newTestServer(t, model, func(c *Config) { c.SystemPrompt = "You sell cars." })
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}})
	if _, err := page.chat("one"); err != nil {
		t.Fatal(err)
	}
	page.session(wire.SessionParams{SessionID: sess.SessionID, Page: &wire.Page{URL: "http://localhost:3000/cars/7", Title: "Car 7"}})
	if _, err := page.chat("two"); err != nil {
		t.Fatal(err)
	}
	reqs := model.requests()
	for i, want := range []string{
		"You sell cars.\n\nThe visitor is on the web page \"Cars\" (http://localhost:3000/cars).",
		"You sell cars.\n\nThe visitor is on the web page \"Car 7\" (http://localhost:3000/cars/7).",
	} {
		if len(reqs) <= i || reqs[i].Messages[0].Content != want {
			t.Errorf("turn %d: system prompt %q, want %q", i, reqs[min(i, len(reqs)-1)].Messages[0].Content, want)
		}
	}
}

// TestConfirmHints: a tool whose annotations say destructiveHint (MCP) or consequentialHint
// (WebMCP) is called with byomcp/confirm; one with neither (or readOnlyHint) is not.
func TestConfirmHints(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ann     *wire.ToolAnnotations
		confirm bool
	}{
		{"none", nil, false},
		{"readOnly", &wire.ToolAnnotations{ReadOnlyHint: true}, false},
		{"destructive", &wire.ToolAnnotations{DestructiveHint: new(true)}, true},
		{"destructive false", &wire.ToolAnnotations{DestructiveHint: new(false)}, false},
		{"consequential", &wire.ToolAnnotations{ConsequentialHint: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
				if n == 0 {
					return &llm.Response{ToolCalls: []chat.ToolCall{call("c1", "echo", `{"text":"x"}`)}}, nil
				}
				return &llm.Response{Text: "done"}, nil
			}}
			ts := newTestServer(t, model, nil)
			tool := echoTool()
			tool.tool.Annotations = tc.ann
			page := newFakePage(t, ts, testOrigin, tool)
			page.session(wire.SessionParams{})
			if _, err := page.chat("go"); err != nil {
				t.Fatal(err)
			}
			calls := page.callsMade()
			if len(calls) != 1 {
				t.Fatalf("tools/call made %d times, want 1", len(calls))
			}
			got := strings.Contains(string(jsonString(calls[0].Meta)), `"byomcp/confirm":true`)
			if got != tc.confirm {
				t.Errorf("tools/call meta = %s: confirm %v, want %v", jsonString(calls[0].Meta), got, tc.confirm)
			}
		})
	}
}

// TestSiteOriginAllowed: a site's origin may connect although --allowed-origins does not
// name it; others may not.
func TestSiteOriginAllowed(t *testing.T) {
	model := &scriptModel{reply: func(int, llm.Request) (*llm.Response, error) { return &llm.Response{Text: "ok"}, nil }}
	ts, _ := siteServer(t, model, `{"sites": [{"name": "shop", "origins": ["https://shop.example"]}]}`)
	r := httptest.NewRequest(http.MethodGet, ts.http.URL+"/v1/ws", nil)
	if !ts.OriginAllowed("https://shop.example", r) {
		t.Error("the site's origin is refused")
	}
	if ts.OriginAllowed("https://evil.example", r) {
		t.Error("an origin of no site is allowed")
	}
}

// TestSiteMCPServers: a site's mcpServers limits the server tools its turns are offered, and
// a call of another server's tool by its name never reaches that server.
func TestSiteMCPServers(t *testing.T) {
	shopURL, shopCalls := httpMCPServer(t, "stock", "3 cars in stock")
	weatherURL, weatherCalls := httpMCPServer(t, "forecast", "sunny")
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "shop", Transport: mcpservers.TransportStreamable, URL: shopURL, Expose: []string{mcpservers.AudienceWeb}},
		{Name: "weather", Transport: mcpservers.TransportStreamable, URL: weatherURL, Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("c1", "shop__stock", `{}`), call("c2", "weather__forecast", `{}`)}}, nil
		}
		return &llm.Response{Text: "done"}, nil
	}}
	path := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(path, []byte(`{"sites": [{"name": "shop", "origins": ["`+testOrigin+`"], "mcpServers": ["shop"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sites.Open(path, sites.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, model, func(c *Config) { c.Sites = reg.Lookup; c.ServerTools = mgr })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	if _, err := page.chat("stock and weather?"); err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, d := range model.requests()[0].Tools {
		offered = append(offered, d.Name)
	}
	if got := strings.Join(offered, ","); got != "echo,shop__stock" {
		t.Errorf("offered %s, want echo,shop__stock (weather is not the site's)", got)
	}
	if shopCalls.Load() != 1 || weatherCalls.Load() != 0 {
		t.Errorf("calls: shop %d, weather %d; want 1 and 0", shopCalls.Load(), weatherCalls.Load())
	}
}
