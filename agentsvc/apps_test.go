package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// shopAppHTML is the shop's app: about the size of the MCP organisation's basic app
// (server-basic-vanillajs, 217,951 bytes), so that an event that carried it would show.
var shopAppHTML = "<!doctype html><title>car card</title><p>A car</p><!--" + strings.Repeat("padding ", 27000) + "-->"

// shopAppChanged is the shop's app after its server changed it.
const shopAppChanged = "<!doctype html><title>car card v2</title><p>A car</p>"

// appServers starts two MCP servers over Streamable HTTP (go-sdk): "shop", with an MCP App
// (show_car shows ui://shop/card.html; refresh_price is for its app only; buy is destructive)
// and "other", whose secret an app of shop must never reach. runs counts each tool's calls.
func appServers(t *testing.T) (*mcpservers.Manager, map[string]*atomic.Int32) {
	t.Helper()
	cfg, runs, _ := appServerConfig(t)
	return startAppServers(t, cfg), runs
}

// appServerConfig starts appServers' MCP servers and returns their configuration; runs also
// counts the reads of the shop's app ("resources/read"); changed, once set, makes the shop
// serve shopAppChanged instead of shopAppHTML.
func appServerConfig(t *testing.T) (*mcpservers.Config, map[string]*atomic.Int32, *atomic.Bool) {
	t.Helper()
	runs := map[string]*atomic.Int32{}
	reads, changed := new(atomic.Int32), new(atomic.Bool)
	runs["resources/read"] = reads
	add := func(srv *mcp.Server, tool *mcp.Tool, answer string) {
		n := new(atomic.Int32)
		runs[tool.Name] = n
		if tool.InputSchema == nil {
			tool.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}, StructuredContent: map[string]any{"answer": answer}}, nil
		})
	}
	shop := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	add(shop, &mcp.Tool{Name: "show_car", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://shop/card.html"}}}, "a red car")
	add(shop, &mcp.Tool{Name: "refresh_price", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}}, "$20,000")
	add(shop, &mcp.Tool{Name: "model_only", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"model"}}}}, "for the model")
	add(shop, &mcp.Tool{Name: "buy", InputSchema: json.RawMessage(`{"type":"object","properties":{"car":{"type":"string"}}}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}}, "bought")
	shop.AddResource(&mcp.Resource{URI: "ui://shop/card.html", Name: "card", MIMEType: mcpservers.AppMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			reads.Add(1)
			html := shopAppHTML
			if changed.Load() {
				html = shopAppChanged
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://shop/card.html", MIMEType: mcpservers.AppMIMEType, Text: html}}}, nil
		})
	other := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
	add(other, &mcp.Tool{Name: "secret"}, "the other server's secret")
	var cfg mcpservers.Config
	for name, srv := range map[string]*mcp.Server{"shop": shop, "other": other} {
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		t.Cleanup(hs.Close)
		cfg.Servers = append(cfg.Servers, mcpservers.ServerConfig{Name: name, Transport: mcpservers.TransportStreamable, URL: hs.URL, Expose: []string{mcpservers.AudienceWeb}})
	}
	return &cfg, runs, changed
}

// startAppServers starts a Manager of cfg (one replica's, or one process's after a restart).
func startAppServers(t *testing.T, cfg *mcpservers.Config) *mcpservers.Manager {
	t.Helper()
	mgr := mcpservers.Start(t.Context(), cfg, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return mgr
}

// appCall sends agent/appCall and returns its result's text and isError.
func appCall(t *testing.T, p *fakePage, token, name, args string) (string, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	err := p.peer.Call(ctx, wire.MethodAgentAppCall, wire.AppCallParams{Token: token, Name: name, Arguments: json.RawMessage(args)}, &res)
	var text []string
	for _, c := range res.Content {
		text = append(text, c.Text)
	}
	return strings.Join(text, "\n"), res.IsError, err
}

// TestAppOverTheSocket: the model calls a server tool with an MCP App; its tool_result
// carries the app (resource, input, result, token); the app's calls (agent/appCall) reach
// tools of its own server that apps may call, and nothing else; a destructive one runs only
// once the visitor confirmed it, as the model's calls do.
func TestAppOverTheSocket(t *testing.T) {
	mgr, runs := appServers(t)
	model, _ := openAIModel(t, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c_show", Name: "shop__show_car", Args: `{"id":"7"}`}}},
		llmtest.Step{Text: "here it is"},
	))
	ts := newTestServer(t, model, func(c *Config) { c.ServerTools = mgr })
	var confirms atomic.Int32
	var confirmAnswer atomic.Bool
	page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) {
		p.confirm = func(context.Context, wire.ConfirmParams) (any, error) {
			confirms.Add(1)
			return wire.ConfirmResult{Confirmed: confirmAnswer.Load()}, nil
		}
	})
	page.session(wire.SessionParams{})
	if _, err := page.chat("show me car 7"); err != nil {
		t.Fatal(err)
	}
	result := turnResult(page, "c_show")
	if result == nil || result.App == nil {
		t.Fatalf("tool_result of shop__show_car = %+v, want an app", result)
	}
	app := result.App
	if app.Server != "shop" || app.Tool != "show_car" || app.URI != "ui://shop/card.html" || app.SHA256 != sha256Of(shopAppHTML) ||
		string(app.Input) != `{"id":"7"}` || !strings.Contains(string(app.Result), `"a red car"`) || app.Token == "" {
		t.Fatalf("app = %+v", app)
	}

	for _, tc := range []struct {
		name, tool, args string
		confirm          bool
		wantText         string
		isError          bool
		ran              string // the tool that must have run once
	}{
		{"an app-only tool of its server", "refresh_price", `{}`, false, "$20,000", false, "refresh_price"},
		{"the tool that showed it", "show_car", `{"id":"8"}`, false, "a red car", false, ""},
		{"a model-only tool", "model_only", `{}`, false, "cannot call model_only", true, ""},
		{"another server's tool", "secret", `{}`, false, "cannot call secret", true, ""},
		{"another server's tool by its model name", "other__secret", `{}`, false, "cannot call", true, ""},
		{"a destructive tool, declined", "buy", `{"car":"7"}`, false, "declined", true, ""},
		{"a destructive tool, confirmed", "buy", `{"car":"7"}`, true, "bought", false, "buy"},
		{"arguments off the schema", "buy", `{"car":7}`, true, "invalid arguments", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]int32{}
			for n, c := range runs {
				before[n] = c.Load()
			}
			asked := confirms.Load()
			confirmAnswer.Store(tc.confirm)
			text, isErr, err := appCall(t, page, app.Token, tc.tool, tc.args)
			if err != nil || isErr != tc.isError || !strings.Contains(text, tc.wantText) {
				t.Fatalf("agent/appCall(%s) = %q, isError %v, %v; want %q, isError %v", tc.tool, text, isErr, err, tc.wantText, tc.isError)
			}
			for n, c := range runs {
				want := before[n]
				if n == tc.ran || (n == "show_car" && tc.tool == "show_car") {
					want++
				}
				if got := c.Load(); got != want {
					t.Errorf("%s ran %d times, want %d", n, got-before[n], want-before[n])
				}
			}
			if tc.tool == "buy" && confirms.Load() != asked+1 {
				t.Errorf("the visitor was asked %d times, want once", confirms.Load()-asked)
			}
			if tc.tool != "buy" && confirms.Load() != asked {
				t.Errorf("the visitor was asked to confirm a call that needs no confirmation")
			}
		})
	}

	// A token that is not this session's for this server is refused.
	for _, token := range []string{"", "shop", "other." + strings.SplitN(app.Token, ".", 2)[1], appToken("another-session", "shop")} {
		_, _, err := appCall(t, page, token, "refresh_price", `{}`)
		var rpcErr *wsrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeInvalidParams {
			t.Errorf("token %q: err = %v, want invalid params", token, err)
		}
	}
	if n := runs["secret"].Load(); n != 0 {
		t.Errorf("the other server's secret ran %d times", n)
	}
}

// TestAppTokenInHistory: the token of an app shown by another replica, or before a restart
// (signed with a key this process does not have), is good for the session whose history
// carries it in a tool_result, and for no other session; a token the history does not carry
// is not; the scan reads the newest appTokenScan events.
func TestAppTokenInHistory(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	foreign := "shop.c2lnbmVkLWJ5LWFub3RoZXItcmVwbGljYQ"
	event := func(seq int64, typ, token string) store.Event {
		data, _ := json.Marshal(map[string]any{"type": typ, "seq": seq, "callId": "c1", "name": "show_car", "text": "ok",
			"app": map[string]any{"server": "shop", "tool": "show_car", "uri": "ui://shop/card.html", "token": token}})
		return store.Event{Seq: seq, Data: data}
	}
	for _, id := range []string{"s-history", "s-other"} {
		if err := st.Create(ctx, &store.Session{ID: id, Origin: testOrigin}); err != nil {
			t.Fatal(err)
		}
	}
	var evs []store.Event
	for seq := int64(1); seq <= appTokenScan+10; seq++ {
		switch seq {
		case 30: // the token in another kind of event does not count
			evs = append(evs, event(seq, wire.EventToolCall, "shop.in-a-tool-call"))
		case 20:
			evs = append(evs, event(seq, wire.EventToolResult, foreign))
		case 2: // older than the newest appTokenScan events
			evs = append(evs, event(seq, wire.EventToolResult, "shop.too-old"))
		case appTokenScan + 5:
			evs = append(evs, event(seq, wire.EventToolResult, "shop.recent"))
		default:
			evs = append(evs, store.Event{Seq: seq, Data: json.RawMessage(`{"type":"text_delta","text":"x"}`)})
		}
	}
	if err := st.Append(ctx, "s-history", store.Batch{Events: evs}); err != nil {
		t.Fatal(err)
	}
	last := int64(appTokenScan + 10)
	for _, token := range []string{foreign, "shop.recent"} {
		if server, ok := tokenInHistory(ctx, st, "s-history", token, last); !ok || server != "shop" {
			t.Errorf("the history's token %q: %q, %v; want shop, true", token, server, ok)
		}
	}
	for _, c := range []struct{ session, token string }{
		{"s-other", foreign},
		{"s-history", "shop.in-a-tool-call"},
		{"s-history", "shop.too-old"},
		{"s-history", "shop.never-issued"},
		{"s-history", ""},
		{"s-missing", foreign},
	} {
		if server, ok := tokenInHistory(ctx, st, c.session, c.token, last); ok {
			t.Errorf("session %s, token %q: accepted for %q", c.session, c.token, server)
		}
	}
}
