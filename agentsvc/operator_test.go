package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// TestOperatorHooks: Tabs lists an open page with its session, page and tools; OnEvent gets
// every logged event with its origin and session, each stamped with its time, and turn_end
// carries the turn's usage.
func TestOperatorHooks(t *testing.T) {
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("c1", "echo", `{"text":"hi"}`)}, Usage: chat.Usage{PromptTokens: 10, TotalTokens: 10}}, nil
		}
		return &llm.Response{Text: "done", Usage: chat.Usage{PromptTokens: 20, CompletionTokens: 2, TotalTokens: 22}}, nil
	}}
	var mu sync.Mutex
	type seen struct {
		origin, session string
		ev              map[string]any
	}
	var got []seen
	ts := newTestServer(t, model, func(c *Config) {
		c.OnEvent = func(origin, session string, data json.RawMessage) {
			var ev map[string]any
			_ = json.Unmarshal(data, &ev)
			mu.Lock()
			got = append(got, seen{origin, session, ev})
			mu.Unlock()
		}
	})
	before := time.Now()
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}})
	ts.waitTools(t, 1)
	tabs := ts.Tabs()
	if len(tabs) != 1 {
		t.Fatalf("got %d tabs, want 1", len(tabs))
	}
	if tb := tabs[0]; tb.Origin != testOrigin || tb.SessionID != sess.SessionID || tb.URL != "http://localhost:3000/cars" || tb.Title != "Cars" ||
		len(tb.Tools) != 1 || tb.Tools[0].Name != "echo" || !strings.Contains(string(tb.Tools[0].InputSchema), `"text"`) || tb.Since.Before(before.Add(-time.Second)) {
		t.Errorf("tab %+v", tb)
	}
	if _, err := page.chat("go"); err != nil {
		t.Fatal(err)
	}
	page.eventsUntil(wire.EventTurnEnd)
	mu.Lock()
	defer mu.Unlock()
	var types []string
	for _, s := range got {
		types = append(types, s.ev["type"].(string))
		if s.origin != testOrigin || s.session != sess.SessionID {
			t.Errorf("event %v from %q %q, want this page's origin and session", s.ev, s.origin, s.session)
		}
		if ms, _ := s.ev["time"].(float64); ms < float64(before.UnixMilli()) {
			t.Errorf("event %v has time %v, want a time of this turn", s.ev["type"], s.ev["time"])
		}
	}
	if want := "turn_start,tool_call,tool_result,text_delta,turn_end"; strings.Join(types, ",") != want {
		t.Errorf("observed %v, want %s", types, want)
	}
	end := got[len(got)-1].ev
	if u, _ := end["usage"].(map[string]any); u == nil || u["totalTokens"] != float64(32) {
		t.Errorf("turn_end usage %v, want 32 tokens", end["usage"])
	}
}

// TestForget: a conversation deleted from the store and forgotten is gone from this process
// too: its socket is closed, and resuming its id starts a new conversation.
func TestForget(t *testing.T) {
	model := &scriptModel{reply: func(int, llm.Request) (*llm.Response, error) { return &llm.Response{Text: "ok"}, nil }}
	ts := newTestServer(t, model, nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	if _, err := page.chat("remember me"); err != nil {
		t.Fatal(err)
	}
	page.eventsUntil(wire.EventTurnEnd)
	ctx := context.Background()
	if err := ts.store.Delete(ctx, sess.SessionID); err != nil {
		t.Fatal(err)
	}
	ts.Forget(sess.SessionID)
	select {
	case <-page.peer.Done():
	case <-time.After(waitLimit):
		t.Fatal("the socket of the forgotten conversation is still open")
	}
	again := newFakePage(t, ts, testOrigin, echoTool())
	cctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	var res wire.SessionResult
	err := again.peer.Call(cctx, wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID}, &res)
	var rpcErr *wsrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeSessionNotFound {
		t.Errorf("resuming a forgotten conversation: got %+v, %v; want session not found (the page then starts a new one)", res, err)
	}
	ts.Forget("no-such-session") // nothing held: nothing happens
}
