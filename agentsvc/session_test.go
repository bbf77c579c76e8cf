package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

func TestResumeReplaysMissedEvents(t *testing.T) {
	ts := newTestServer(t, callOnceEcho(), nil)
	a := newFakePage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	if _, err := a.chat("hello"); err != nil {
		t.Fatal(err)
	}
	all := a.eventsUntil(wire.EventTurnEnd)
	last := all[len(all)-1].Seq
	a.peer.Close(nil)

	b := newFakePage(t, ts, testOrigin, echoTool())
	lastSeq := int64(2)
	res := b.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &lastSeq})
	if !res.Resumed || res.SessionID != sess.SessionID || res.Seq != last {
		t.Fatalf("got %+v, want the same session resumed at seq %d", res, last)
	}
	roles := []string{}
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
		t.Errorf("got history %v, want user,assistant,tool,assistant", roles)
	}
	replayed := b.eventsUntil(wire.EventTurnEnd)
	prev := lastSeq
	text := ""
	for _, e := range replayed {
		if e.Seq <= prev {
			t.Errorf("replayed seq %d after %d: doubled or out of order", e.Seq, prev)
		}
		prev = e.Seq
		text += e.Delta
	}
	if prev != last {
		t.Errorf("replay ended at seq %d, want %d", prev, last)
	}
	if !strings.Contains(text, "done") {
		t.Errorf("replayed text %q misses the answer", text)
	}
	// The next turn goes on in the same session, numbering after the last seq.
	if _, err := b.chat("again"); err != nil {
		t.Fatal(err)
	}
	if e := b.nextEvent(); e.Type != wire.EventTurnStart || e.Seq != last+1 {
		t.Errorf("got %s seq %d, want turn_start seq %d", e.Type, e.Seq, last+1)
	}
}

func callOnceEcho() *scriptModel {
	return &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == chat.RoleTool {
			return &llm.Response{Text: "all done"}, nil
		}
		return &llm.Response{ToolCalls: []chat.ToolCall{call("e1", "echo", `{"text":"x"}`)}}, nil
	}}
}

func TestSessionBoundToOrigin(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	a := newFakePage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	a.peer.Close(nil)
	other := newFakePage(t, ts, "http://localhost:4000", echoTool())
	var res wire.SessionResult
	err := other.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID}, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
		t.Errorf("another origin resuming: got %v %+v, want %d", err, res, wire.CodeSessionNotFound)
	}
	err = other.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: "0123456789abcdef0123456789abcdef"}, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
		t.Errorf("unknown id: got %v, want %d", err, wire.CodeSessionNotFound)
	}
}

func TestDuplicateTabGetsAFork(t *testing.T) {
	ts := newTestServer(t, textModel("hello there"), nil)
	a := newFakePage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	if _, err := a.chat("hi"); err != nil {
		t.Fatal(err)
	}
	b := newFakePage(t, ts, testOrigin, echoTool())
	res := b.session(wire.SessionParams{SessionID: sess.SessionID})
	if !res.Forked || res.Resumed || res.SessionID == sess.SessionID {
		t.Fatalf("got %+v, want a forked new session", res)
	}
	if len(res.Messages) != 2 || res.Messages[1].Content != "hello there" {
		t.Errorf("got messages %+v, want the copied history", res.Messages)
	}
	// Both tabs chat independently; tool calls of each go to its own socket.
	if _, err := b.chat("from b"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.chat("from a"); err != nil {
		t.Fatal(err)
	}
}

func TestTurnFollowsNavigation(t *testing.T) {
	goTool := pageTestTool{
		tool: wire.PageTool{Name: "open_configurator", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn:   func(context.Context, map[string]any) (any, error) { return "navigating to the configurator", nil },
	}
	configure := pageTestTool{
		tool: wire.PageTool{Name: "configure_car", InputSchema: json.RawMessage(`{"type":"object","properties":{"color":{"enum":["red","blue"]}}}`)},
		fn: func(_ context.Context, args map[string]any) (any, error) {
			return "color set to " + args["color"].(string), nil
		},
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n1", "open_configurator", `{}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n2", "configure_car", `{"color":"red"}`)}}, nil
		default:
			return &llm.Response{Text: "Your car is red."}, nil
		}
	}}
	ts := newTestServer(t, model, nil)
	goTool.fn = func(context.Context, map[string]any) (any, error) {
		return navigatingResult("navigating to the configurator"), nil
	}
	a := newFakePage(t, ts, testOrigin, goTool)
	sess := a.session(wire.SessionParams{})
	go func() { _, _ = a.chat("take me to the configurator and make it red") }()
	a.eventsUntil(wire.EventToolResult)
	a.peer.Close(nil) // the page navigates once its tool's result is in

	b := newFakePage(t, ts, testOrigin, configure)
	lastSeq := int64(0)
	res := b.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &lastSeq})
	if !res.Resumed {
		t.Fatalf("got %+v, want the session resumed on the new page", res)
	}
	evs := b.eventsUntil(wire.EventTurnEnd)
	end := evs[len(evs)-1]
	if end.StopReason != wire.StopEnd || !strings.Contains(end.Text, "red") {
		t.Errorf("got turn_end %+v, want the turn finished on the new page", end)
	}
	if calls := b.callsMade(); len(calls) != 1 || calls[0].Name != "configure_car" {
		t.Errorf("got calls on the new page %+v, want configure_car", calls)
	}
	reqs := model.requests()
	if names := toolNames(reqs[1].Tools); names != "configure_car" {
		t.Errorf("second model call offered %q, want the new page's configure_car", names)
	}
}

func toolNames(defs []chat.ToolDef) string {
	var n []string
	for _, d := range defs {
		n = append(n, d.Name)
	}
	return strings.Join(n, ",")
}

func TestTurnEndsCleanlyWhenPageNeverReturns(t *testing.T) {
	var ts *testServer
	var a *fakePage
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("g", "leave", `{}`)}}, nil
		}
		if n == 1 {
			a.peer.Close(nil) // the page leaves once its tool answered
			waitFor(t, "the page to leave", func() bool { return ts.ConnCount() == 0 })
			return &llm.Response{ToolCalls: []chat.ToolCall{call("h", "leave", `{}`)}}, nil
		}
		return &llm.Response{Text: "The page went away."}, nil
	}}
	ts = newTestServer(t, model, func(c *Config) { c.ReconnectWait = 200 * time.Millisecond })
	leave := pageTestTool{tool: wire.PageTool{Name: "leave", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(context.Context, map[string]any) (any, error) { return "bye", nil }}
	a = newFakePage(t, ts, testOrigin, leave)
	sess := a.session(wire.SessionParams{})
	go func() { _, _ = a.chat("leave") }()
	waitFor(t, "the turn to end", func() bool {
		s, err := ts.store.Load(context.Background(), sess.SessionID)
		return err == nil && s.ActiveTurn == "" && len(s.Messages) > 1
	})
	s, _ := ts.store.Load(context.Background(), sess.SessionID)
	var toolAnswer string
	for _, m := range s.Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == "h" {
			toolAnswer = m.Content
		}
	}
	if !strings.Contains(toolAnswer, "not connected") {
		t.Errorf("got answer %q for the call after the page left, want a not-connected error", toolAnswer)
	}
}

func TestInterruptedTurnIsMarked(t *testing.T) {
	st := store.NewMemory()
	ctx := context.Background()
	now := time.Now()
	id := "00112233445566778899aabbccddeeff"
	if err := st.Create(ctx, &store.Session{ID: id, Origin: testOrigin, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	active := "t-crashed"
	start, _ := json.Marshal(wire.TurnStartEvent{EventHeader: wire.EventHeader{Type: wire.EventTurnStart, TurnID: active, Seq: 1}, Text: "question"})
	if err := st.Append(ctx, id, store.Batch{
		Messages:   []chat.Message{{Role: chat.RoleUser, Content: "question", TurnID: active}},
		Events:     []store.Event{{Seq: 1, Data: start}},
		ActiveTurn: &active,
	}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, textModel("fresh answer"), func(c *Config) { c.Store = st })
	page := newFakePage(t, ts, testOrigin, echoTool())
	lastSeq := int64(1)
	res := page.session(wire.SessionParams{SessionID: id, LastSeq: &lastSeq})
	// The error event says why, as for any turn that failed; then turn_end, interrupted.
	if e := page.nextEvent(); e.Type != wire.EventError || e.TurnID != active || e.Seq != 2 || !strings.Contains(e.Message, "interrupted") {
		t.Errorf("got %+v, want the error event for the crashed turn at seq 2", e)
	}
	if e := page.nextEvent(); e.Type != wire.EventTurnEnd || !e.Interrupted || e.StopReason != wire.StopError || e.TurnID != active || e.Seq != 3 {
		t.Errorf("got %+v, want turn_end interrupted for the crashed turn at seq 3", e)
	}
	// Stored as a turn that added nothing: end {error, the sentence}, no content for the model.
	s, _ := st.Load(ctx, id)
	if s.ActiveTurn != "" || len(s.Messages) != 2 || s.Messages[1].Content != "" || s.Messages[1].End == nil ||
		s.Messages[1].End.StopReason != wire.StopError || !strings.Contains(s.Messages[1].End.Error, "interrupted") {
		t.Errorf("got stored session %+v, want the turn closed and marked interrupted", s)
	}
	_ = res
	if r, err := page.chat("again"); err != nil || r.Text != "fresh answer" {
		t.Errorf("got %+v %v, want the next turn to run", r, err)
	}
}
