package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

func TestChatTurnThroughOpenAIClient(t *testing.T) {
	model, fake := openAIModel(t, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 7}},
		llmtest.Step{Text: "The page said hi.", Usage: &llmtest.Usage{PromptTokens: 150, CompletionTokens: 5}},
	))
	ts := newTestServer(t, model, nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/", Title: "Shop"}})
	if sess.Resumed || len(sess.SessionID) != 32 {
		t.Fatalf("got session %+v, want a new one with a 128-bit id", sess)
	}
	res, err := page.chat("say hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != wire.StopEnd || res.Text != "The page said hi." || res.TurnID == "" {
		t.Errorf("got %+v, want stopReason end and the model's text", res)
	}
	if want := (chat.Usage{PromptTokens: 250, CompletionTokens: 12, TotalTokens: 262}); res.Usage != want {
		t.Errorf("got usage %+v, want the sum of both model calls %+v", res.Usage, want)
	}
	evs := page.eventsUntil(wire.EventTurnEnd)
	want := []string{wire.EventTurnStart, wire.EventToolCall, wire.EventToolResult, wire.EventTextDelta, wire.EventTurnEnd}
	if got := types(evs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got events %v, want %v", got, want)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.SessionID != sess.SessionID || e.TurnID != res.TurnID {
			t.Errorf("event %d: got seq %d session %q turn %q, want seq %d in this session and turn", i, e.Seq, e.SessionID, e.TurnID, i+1)
		}
	}
	if tr := evs[2]; tr.Name != "echo" || tr.IsError || tr.Text != "echo: hi" || tr.CallID != "call_1" {
		t.Errorf("got tool_result %+v, want echo: hi", tr)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "echo" {
		t.Errorf("got tools %+v, want echo", reqs[0].Tools)
	}
	last := reqs[1].LastMessage()
	if last.Role != "tool" || last.ToolCallID != "call_1" || !strings.Contains(last.Content, "echo: hi") || !strings.Contains(last.Content, "<tool_output") {
		t.Errorf("got last message %+v, want the labelled tool result for call_1", last)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "Shop") {
		t.Errorf("system prompt %q does not name the page", reqs[0].Messages[0].Content)
	}
}

func TestParallelToolCallsEachAnswered(t *testing.T) {
	var mu sync.Mutex
	running, peak := 0, 0
	gate := make(chan struct{})
	slow := pageTestTool{
		tool: wire.PageTool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(ctx context.Context, _ map[string]any) (any, error) {
			mu.Lock()
			running++
			peak = max(peak, running)
			if running == 2 {
				close(gate)
			}
			mu.Unlock()
			select { // both calls must be running at once to pass
			case <-gate:
			case <-time.After(waitLimit):
			}
			mu.Lock()
			running--
			mu.Unlock()
			return "done", nil
		},
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{
				call("a", "slow", `{}`), call("b", "slow", `{}`),
				call("c", "echo", `{"text":5}`), call("d", "nope", `{}`), call("e", "echo", `{not json`),
			}}, nil
		}
		return &llm.Response{Text: "ok"}, nil
	}}
	ts := newTestServer(t, model, nil)
	page := newFakePage(t, ts, testOrigin, echoTool(), slow)
	page.session(wire.SessionParams{})
	if _, err := page.chat("go"); err != nil {
		t.Fatal(err)
	}
	if peak != 2 {
		t.Errorf("got %d calls running at once, want 2", peak)
	}
	reqs := model.requests()
	answered := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = m.Content
		}
	}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if answered[id] == "" {
			t.Errorf("tool call %s got no answer", id)
		}
	}
	if !strings.Contains(answered["c"], "invalid arguments") || !strings.Contains(answered["d"], "unknown tool") || !strings.Contains(answered["e"], "invalid arguments") {
		t.Errorf("got answers %v, want validation and unknown-tool errors", answered)
	}
	if n := len(page.callsMade()); n != 2 {
		t.Errorf("the page saw %d calls, want 2 (only the valid ones)", n)
	}
}

// blockingTool blocks until its context ends or release is closed.
func blockingTool(started chan<- struct{}, release <-chan struct{}) pageTestTool {
	return pageTestTool{
		tool: wire.PageTool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(ctx context.Context, _ map[string]any) (any, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return "released", nil
			}
		},
	}
}

// callOnce calls the tool once per user message, then answers.
func callOnce(name string) *scriptModel {
	return &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if req.Messages[len(req.Messages)-1].Role == chat.RoleUser {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("w1", name, `{}`)}}, nil
		}
		return &llm.Response{Text: "finished"}, nil
	}}
}

func TestSecondChatWhileTurnRuns(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ts := newTestServer(t, callOnce("wait"), nil)
	page := newFakePage(t, ts, testOrigin, blockingTool(started, release))
	page.session(wire.SessionParams{})
	first := make(chan error, 1)
	go func() { _, err := page.chat("one"); first <- err }()
	<-started
	_, err := page.chat("two")
	if !errors.Is(err, wsrpc.NewError(wire.CodeTurnInProgress, "")) {
		t.Errorf("got %v, want error %d", err, wire.CodeTurnInProgress)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first turn: %v", err)
	}
}

func TestCancelStopsTurnAndToolCalls(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	ts := newTestServer(t, callOnce("wait"), nil)
	page := newFakePage(t, ts, testOrigin, blockingTool(started, release))
	sess := page.session(wire.SessionParams{})

	// notifications/cancelled for the agent/chat request (the Peer sends it when ctx ends).
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- page.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "go"}, nil) }()
	<-started
	cancel()
	<-done
	select {
	case cp := <-page.cancel:
		if len(cp.RequestID) == 0 {
			t.Error("notifications/cancelled without requestId")
		}
	case <-time.After(waitLimit):
		t.Fatal("the page got no notifications/cancelled for its running tool call")
	}
	evs := page.eventsUntil(wire.EventTurnEnd)
	if end := evs[len(evs)-1]; end.StopReason != wire.StopCancelled {
		t.Errorf("got stopReason %q, want cancelled", end.StopReason)
	}

	// agent/cancel answers the agent/chat request with stopReason cancelled. The first turn
	// may still be ending (its agent/chat was abandoned by the page, not answered): the next
	// chat is sent once it has ended in the server's memory too.
	waitFor(t, "the first turn to end in the server's memory", turnOverHere(ts, sess.SessionID))
	res := make(chan wire.ChatResult, 1)
	errc := make(chan error, 1)
	go func() {
		r, err := page.chat("again")
		if err != nil {
			errc <- err
			return
		}
		res <- r
	}()
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("agent/chat: %v", err)
	}
	var cr wire.CancelResult
	if err := page.peer.Call(context.Background(), wire.MethodAgentCancel, wire.CancelParams{}, &cr); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-res:
		if r.StopReason != wire.StopCancelled || r.TurnID != cr.TurnID {
			t.Errorf("got %+v, want stopReason cancelled for turn %s", r, cr.TurnID)
		}
	case <-time.After(waitLimit):
		t.Fatal("agent/chat not answered after agent/cancel")
	}
}

func TestLimitsStopTheLoop(t *testing.T) {
	always := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{ToolCalls: []chat.ToolCall{call("c"+string(rune('a'+n)), "echo", `{"text":"again"}`)}}, nil
	}}
	ts := newTestServer(t, always, func(c *Config) { c.Limits = loop.Limits{MaxModelCalls: 3} })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	res, err := page.chat("loop")
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != wire.StopMaxIterations || len(always.requests()) != 3 {
		t.Errorf("got %s after %d model calls, want max_iterations after 3", res.StopReason, len(always.requests()))
	}

	burst := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{ToolCalls: []chat.ToolCall{call("x", "echo", `{"text":"1"}`), call("y", "echo", `{"text":"2"}`), call("z", "echo", `{"text":"3"}`)}}, nil
	}}
	ts2 := newTestServer(t, burst, func(c *Config) { c.Limits = loop.Limits{MaxToolCalls: 2} })
	page2 := newFakePage(t, ts2, testOrigin, echoTool())
	page2.session(wire.SessionParams{})
	res, err = page2.chat("burst")
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != wire.StopMaxIterations || len(page2.callsMade()) != 2 {
		t.Errorf("got %s with %d calls run, want max_iterations with 2", res.StopReason, len(page2.callsMade()))
	}
}

// TestToolEventsInOrderWithThePagesNames: the tool_call events of a round of parallel calls
// come in the model's order (they came in the order their goroutines happened to run), name
// the tool as the page does ("cart.add", which the model knows as "cart_add"), as do the
// tool_result events, and a call past the turn's limit of tool calls has both events too
// (its result says it was not run).
func TestToolEventsInOrderWithThePagesNames(t *testing.T) {
	const calls = 6
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		var tcs []chat.ToolCall
		for i := range calls {
			tcs = append(tcs, call(fmt.Sprint("c", i), req.Tools[0].Name, `{"text":"x"}`))
		}
		return &llm.Response{ToolCalls: tcs}, nil
	}}
	ts := newTestServer(t, model, func(c *Config) { c.Limits = loop.Limits{MaxToolCalls: calls - 2} })
	tool := echoTool()
	tool.tool.Name = "cart.add"
	page := newFakePage(t, ts, testOrigin, tool)
	page.session(wire.SessionParams{})
	for turn := range 3 {
		if _, err := page.chat("add them"); err != nil {
			t.Fatal(err)
		}
		var order []string
		results := map[string]event{}
		for _, e := range page.eventsUntil(wire.EventTurnEnd) {
			switch e.Type {
			case wire.EventToolCall:
				order = append(order, e.CallID)
				if e.Name != "cart.add" {
					t.Errorf("turn %d: tool_call %s names %q, want the page's name cart.add", turn, e.CallID, e.Name)
				}
			case wire.EventToolResult:
				results[e.CallID] = e
			}
		}
		if want := []string{"c0", "c1", "c2", "c3", "c4", "c5"}; !slices.Equal(order, want) {
			t.Errorf("turn %d: tool_call events %v, want the model's order %v", turn, order, want)
		}
		for i := range calls {
			r, ok := results[fmt.Sprint("c", i)]
			switch {
			case !ok:
				t.Errorf("turn %d: no tool_result for c%d", turn, i)
			case r.Name != "cart.add":
				t.Errorf("turn %d: tool_result c%d names %q, want cart.add", turn, i, r.Name)
			case i >= calls-2 && (!r.IsError || !strings.Contains(r.Text, "not run")):
				t.Errorf("turn %d: the result of c%d, past the limit: %+v, want an error saying it was not run", turn, i, r)
			case i < calls-2 && r.IsError:
				t.Errorf("turn %d: the result of c%d: %+v, want the page's answer", turn, i, r)
			}
		}
	}
}

func TestModelErrorEndsTurnWithErrorEvent(t *testing.T) {
	failing := &scriptModel{reply: func(int, llm.Request) (*llm.Response, error) {
		return nil, &llm.Error{Status: 429, Message: "the model API is rate limiting requests", Retryable: true}
	}}
	ts := newTestServer(t, failing, nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	res, err := page.chat("hello")
	if err != nil {
		t.Fatal(err)
	}
	evs := page.eventsUntil(wire.EventTurnEnd)
	if got := types(evs); strings.Join(got, ",") != "turn_start,error,turn_end" {
		t.Fatalf("got %v, want turn_start,error,turn_end", got)
	}
	if e := evs[1]; !e.Retryable || !strings.Contains(e.Message, "rate limiting") {
		t.Errorf("got error event %+v, want a retryable rate-limit message", e)
	}
	if res.StopReason != wire.StopError {
		t.Errorf("got %s, want error", res.StopReason)
	}
}

func TestChatInputChecks(t *testing.T) {
	ts := newTestServer(t, textModel("ok"), func(c *Config) { c.MaxChatText = 10 })
	page := newFakePage(t, ts, testOrigin, echoTool())
	if _, err := page.chat("before session"); !errors.Is(err, wsrpc.NewError(wire.CodeNoSession, "")) {
		t.Errorf("chat before agent/session: got %v, want %d", err, wire.CodeNoSession)
	}
	page.session(wire.SessionParams{})
	for _, text := range []string{"", "   ", "this is longer than ten bytes"} {
		if _, err := page.chat(text); !errors.Is(err, wsrpc.NewError(wire.CodeTextTooLong, "")) {
			t.Errorf("text %q: got %v, want %d", text, err, wire.CodeTextTooLong)
		}
	}
	// Params of the wrong type: -32602 saying what is wrong in the JSON's terms, not Go's.
	for params, want := range map[string]string{
		`{"text":5}`:                        "invalid params: text must be a string, not a number",
		`{"text":"hi","clientTurnId":true}`: "invalid params: clientTurnId must be a string, not a boolean",
		`["hi"]`:                            "invalid params: the value must be an object, not an array",
	} {
		err := page.peer.Call(t.Context(), wire.MethodAgentChat, json.RawMessage(params), nil)
		var rpcErr *wsrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != wsrpc.CodeInvalidParams || rpcErr.Message != want {
			t.Errorf("agent/chat %s: %v, want -32602 %q", params, err, want)
		}
	}
	if res, err := page.chat("fine"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("got %+v %v, want a normal turn", res, err)
	}
}

// An outside test: a model response with hundreds of tool calls (each past the turn's limit
// answered as not run, two events each) filled the page's send queue at once and dropped a
// page that was reading (1006, its agent/chat never answered). A response's calls past
// 64 are left out: the page stays, and gets the events of the rest.
func TestHundredsOfToolCallsInOneResponseKeepThePage(t *testing.T) {
	const calls = 600
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n > 0 {
			return &llm.Response{Text: "Still here."}, nil
		}
		tcs := make([]chat.ToolCall, calls)
		for i := range tcs {
			tcs[i] = call(fmt.Sprint("c", i), "echo", `{"text":"x"}`)
		}
		return &llm.Response{ToolCalls: tcs}, nil
	}}
	ts := newTestServer(t, model, nil)
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	res, err := page.chat("call everything")
	if err != nil {
		t.Fatalf("agent/chat: %v (the page was dropped?)", err)
	}
	if res.StopReason != wire.StopMaxIterations { // the calls past the turn's limit end it so
		t.Errorf("got %+v, want the turn ended with max_iterations", res)
	}
	var callEvents, resultEvents int
	for _, e := range page.eventsUntil(wire.EventTurnEnd) {
		switch e.Type {
		case wire.EventToolCall:
			callEvents++
		case wire.EventToolResult:
			resultEvents++
		}
	}
	if callEvents != loop.MaxCallsPerResponse || resultEvents != loop.MaxCallsPerResponse {
		t.Errorf("got %d tool_call and %d tool_result events, want %d of each", callEvents, resultEvents, loop.MaxCallsPerResponse)
	}
	if r, err := page.chat("still there?"); err != nil || r.StopReason != wire.StopEnd {
		t.Errorf("the next turn: %+v %v", r, err)
	}
}
