package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

func textModel(text string) *scriptModel {
	return &scriptModel{reply: func(int, llm.Request) (*llm.Response, error) {
		return &llm.Response{Text: text, FinishReason: "stop"}, nil
	}}
}

func TestOriginAllowList(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) {
		c.AllowedOrigins = []string{"https://shop.example", "http://localhost:*"}
	})
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"https://evil.example", http.StatusForbidden},
		{"https://shop.example.evil.example", http.StatusForbidden},
		{"http://shop.example", http.StatusForbidden},
		{"https://shop.example:8443", http.StatusForbidden},
		{"https://shop.example", http.StatusSwitchingProtocols},
		{"https://SHOP.example:443", http.StatusSwitchingProtocols},
		{"http://localhost:5173", http.StatusSwitchingProtocols},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			c, resp, err := websocket.DefaultDialer.Dial(ts.wsURL, h)
			if c != nil {
				c.Close()
			}
			if resp == nil {
				t.Fatalf("no HTTP response: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Errorf("got HTTP %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestDefaultOriginsAllowSelfAndLocalhost(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	for origin, want := range map[string]int{
		ts.http.URL:                 http.StatusSwitchingProtocols, // the server's own origin
		"http://localhost:1234":     http.StatusSwitchingProtocols,
		"http://127.0.0.1:9":        http.StatusSwitchingProtocols,
		"https://example.com":       http.StatusForbidden,
		"http://localhost.evil.com": http.StatusForbidden,
	} {
		h := http.Header{"Origin": {origin}}
		c, resp, _ := websocket.DefaultDialer.Dial(ts.wsURL, h)
		if c != nil {
			c.Close()
		}
		if resp == nil || resp.StatusCode != want {
			t.Errorf("origin %s: got %v, want %d", origin, resp, want)
		}
	}
}

func TestBadAllowedOriginConfig(t *testing.T) {
	for _, o := range []string{"*", "shop.example", "https://shop.example/path", "ftp://x"} {
		_, err := NewServer(Config{AllowedOrigins: []string{o}, Store: newTestStore(), Model: textModel("")})
		if err == nil {
			t.Errorf("origin %q: got no error, want one", o)
		}
	}
}

func TestHandshakeListsAllPages(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	var many []pageTestTool
	for i := 0; i < 7; i++ {
		tt := echoTool()
		tt.tool.Name = "echo_" + string(rune('a'+i))
		many = append(many, tt)
	}
	page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) { p.pageSize = 3 }, many...)
	page.waitListed(3) // 7 tools in pages of 3
	c := ts.connFor(t)
	waitFor(t, "all tools registered", func() bool { return len(c.mcp.Tools()) == 7 })
}

func TestUnsupportedProtocolVersionCloses(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) { p.version = "1999-01-01" }, echoTool())
	select {
	case <-page.peer.Done():
	case <-time.After(waitLimit):
		t.Fatal("the agent kept a page that speaks an unsupported version")
	}
	var ce *websocket.CloseError
	if err := page.peer.Wait(); !errors.As(err, &ce) || ce.Code != 1002 || !strings.Contains(ce.Text, "1999-01-01") {
		t.Errorf("got close %v, want 1002 naming the version", err)
	}
}

func TestToolRejectedOneByOne(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	bad := []pageTestTool{
		{tool: wire.PageTool{Name: "has space", InputSchema: echoSchema}},
		{tool: wire.PageTool{Name: "bad_schema", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)}},
		{tool: wire.PageTool{Name: "remote_ref", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)}},
		{tool: wire.PageTool{Name: "file_ref", InputSchema: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)}},
		{tool: wire.PageTool{Name: "not_object", InputSchema: json.RawMessage(`{"type":"string"}`)}},
		{tool: wire.PageTool{Name: "echo", InputSchema: echoSchema}}, // duplicate of the good one below
	}
	page := newFakePage(t, ts, testOrigin, append([]pageTestTool{echoTool()}, bad...)...)
	page.waitListed(1)
	got := map[string]string{}
	for range bad {
		e := page.nextEvent()
		if e.Type != wire.EventToolRejected {
			t.Fatalf("got event %s, want tool_rejected", e.Type)
		}
		if e.Seq != 0 || e.SessionID != "" {
			t.Errorf("tool_rejected before agent/session: got seq %d session %q, want none", e.Seq, e.SessionID)
		}
		got[e.Name] = e.Reason
	}
	for _, b := range bad {
		if got[b.tool.Name] == "" {
			t.Errorf("tool %q: not rejected", b.tool.Name)
		}
	}
	c := ts.connFor(t)
	if list := c.mcp.Tools(); len(list) != 1 || list[0].Name != "echo" {
		t.Errorf("got tools %v, want only echo", list)
	}
}

func TestCallToolValidatesBeforeThePage(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	c := ts.waitTools(t, 1)
	ctx := context.Background()
	for _, args := range []string{`{}`, `{"text":""}`, `{"text":5}`, `{"text":"a","extra":1}`, `[1]`, `not json`} {
		out := c.mcp.Call(ctx, "echo", json.RawMessage(args))
		if out.Kind != tools.InvalidArgs || !out.IsError() || !strings.HasPrefix(out.Text, "invalid arguments:") {
			t.Errorf("args %s: got %q %v %v, want an invalid-arguments tool error", args, out.Text, out.IsError(), out.Kind)
		}
	}
	if n := len(page.callsMade()); n != 0 {
		t.Fatalf("the page saw %d calls with invalid arguments, want 0", n)
	}
	out := c.mcp.Call(ctx, "echo", json.RawMessage(`{"text":"hello"}`))
	if out.Kind != tools.OK || out.IsError() || out.Text != "echo: hello" {
		t.Errorf("got %q %v %v, want echo: hello", out.Text, out.IsError(), out.Kind)
	}
	calls := page.callsMade()
	if len(calls) != 1 || calls[0].Meta == nil || calls[0].Meta.ProgressToken == "" {
		t.Errorf("got calls %+v, want one with a progress token", calls)
	}
}

func TestCallToolFailsAtOnceWhenPageDisconnects(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) { c.ToolTimeout = time.Hour })
	started := make(chan struct{})
	page := newFakePage(t, ts, testOrigin, pageTestTool{
		tool: wire.PageTool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(ctx context.Context, _ map[string]any) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	c := ts.waitTools(t, 1)
	go func() { <-started; page.peer.Close(nil) }()
	out := c.mcp.Call(context.Background(), "slow", nil)
	if out.Kind != tools.PageGone {
		t.Errorf("got %v (%q), want page_gone", out.Kind, out.Text)
	}
}

func TestListChangedRelists(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	c := ts.waitTools(t, 1)
	page.waitListed(1)
	page.lock.Lock()
	page.tools = append(page.tools, wire.PageTool{Name: "second", InputSchema: json.RawMessage(`{"type":"object"}`)})
	page.lock.Unlock()
	for i := 0; i < 5; i++ { // a burst is debounced into one listing
		if err := page.peer.Notify(context.Background(), wire.MethodToolsListChanged, nil); err != nil {
			t.Fatal(err)
		}
	}
	page.waitListed(1)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c.mcp.Ready(ctx)
	if n := len(c.mcp.Tools()); n != 2 {
		t.Errorf("got %d tools after list_changed, want 2", n)
	}
	select {
	case <-page.listed:
		t.Error("a burst of list_changed caused more than one listing")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestShutdownClosesSocketsWith1001(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.waitListed(1)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-page.peer.Done()
	var ce *websocket.CloseError
	if err := page.peer.Wait(); !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Errorf("got %v, want close 1001", err)
	}
	h := http.Header{"Origin": {testOrigin}}
	if c, resp, _ := websocket.DefaultDialer.Dial(ts.wsURL, h); c != nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a new socket during shutdown: got %v, want 503", resp)
	}
}

// connFor returns the server side of the only open socket.
func (ts *testServer) connFor(t *testing.T) *pageConn {
	t.Helper()
	var c *pageConn
	waitFor(t, "one open socket", func() bool {
		conns := serverConns(ts.Server)
		for _, k := range conns {
			c = k
		}
		return len(conns) == 1
	})
	return c
}

// waitFor polls cond (bounded).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !pollUntil(time.Now().Add(waitLimit), cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// pollUntil calls cond every few milliseconds until it holds (true) or deadline has passed
// (false). It is the tests' one polling loop; a test that must report more than waitFor's
// "timed out" uses it.
func pollUntil(deadline time.Time, cond func() bool) bool {
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func newFakePageWith(t *testing.T, ts *testServer, origin string, mod func(*fakePage), tools ...pageTestTool) *fakePage {
	t.Helper()
	p := &fakePage{t: t, funcs: map[string]toolFunc{}, events: make(chan json.RawMessage, 1024), listed: make(chan struct{}, 64), cancel: make(chan wire.CancelledParams, 16)}
	for _, tt := range tools {
		p.tools = append(p.tools, tt.tool)
		p.funcs[tt.tool.Name] = tt.fn
	}
	mod(p)
	p.connect(ts, origin)
	return p
}
