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
)

// Two replicas in one process on a memory store with a bus (the Redis bus is the same
// interface; cmd/byomcp's LB tests run real processes on a real redis-server behind HAProxy).

// twoReplicas starts replicas a and b on one store with a bus; model runs on both.
func twoReplicas(t *testing.T, model llm.Model, mod func(*Config)) (shared store.Store, a, b *testServer) {
	t.Helper()
	return twoReplicasVia(t, model, mod, nil)
}

// twoReplicasVia is twoReplicas where each replica uses via(replica, shared) as its store (a
// faulty store in front of the shared one, say); nil via, or a nil result, is shared itself.
func twoReplicasVia(t *testing.T, model llm.Model, mod func(*Config), via func(replica string, shared store.Store) store.Store) (shared store.Store, a, b *testServer) {
	t.Helper()
	shared = store.NewMemoryWithBus()
	replica := func(owner string) *testServer {
		st := shared
		if via != nil {
			if w := via(owner, shared); w != nil {
				st = w
			}
		}
		return newQuietServer(t, model, func(c *Config) {
			c.Store = st
			c.OwnerID = owner
			if mod != nil {
				mod(c)
			}
		})
	}
	return shared, replica("replica-a"), replica("replica-b")
}

// flakyB is a via of twoReplicasVia: replica b's store is a flakyStore, in *f.
func flakyB(f **flakyStore) func(string, store.Store) store.Store {
	return func(replica string, shared store.Store) store.Store {
		if replica != "replica-b" {
			return nil
		}
		*f = &flakyStore{Store: shared}
		return *f
	}
}

// TestTurnFollowsItsTabToAnotherReplica: a tool navigates, the next page lands on the other
// replica while the turn runs on the first: the turn goes on with the new page's tools, its
// tool call runs in the new page (through the bus), the new page gets every event once as it
// is appended, and the next turn runs on the replica the tab is on.
func TestTurnFollowsItsTabToAnotherReplica(t *testing.T) {
	goTool := pageTestTool{tool: wire.PageTool{Name: "open_configurator", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	goTool.fn = func(context.Context, map[string]any) (any, error) {
		return navigatingResult("navigating to the configurator"), nil
	}
	configure := pageTestTool{
		tool: wire.PageTool{Name: "configure_car", InputSchema: json.RawMessage(`{"type":"object","properties":{"color":{"enum":["red","blue"]}},"required":["color"]}`)},
		fn: func(_ context.Context, args map[string]any) (any, error) {
			return "color set to " + args["color"].(string), nil
		},
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n1", "open_configurator", `{}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n2", "configure_car", `{"color":"blue"}`), call("n3", "configure_car", `{"color":"green"}`)}}, nil
		case 2:
			return &llm.Response{Text: "Your car is blue."}, nil
		default:
			return &llm.Response{Text: "Answered where the tab is."}, nil
		}
	}}
	shared, a, b := twoReplicas(t, model, nil)
	first := openPage(t, a, testOrigin, goTool)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("take me to the configurator and make it blue") }()
	seen := first.eventsUntil(wire.EventToolResult)
	first.peer.Close(nil) // the page navigates once its tool's result is in

	second := openPage(t, b, testOrigin, configure)
	last := lastSeqOf(seen)
	res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked {
		t.Fatalf("got %+v, want the session resumed on b", res)
	}
	if res.Running == nil {
		t.Fatalf("got no running turn in %+v; the turn runs on a", res)
	}
	seen = append(seen, second.eventsUntil(wire.EventTurnEnd)...)
	end := seen[len(seen)-1]
	if end.StopReason != wire.StopEnd || !strings.Contains(end.Text, "blue") {
		t.Fatalf("got turn_end %+v, want the turn finished with the new page", end)
	}
	calls := second.callsMade()
	if len(calls) != 1 || calls[0].Name != "configure_car" {
		t.Errorf("got calls on the new page %+v, want one configure_car (the invalid one is refused on b by the schema)", calls)
	}
	results := map[string]event{}
	for _, e := range seen {
		if e.Type == wire.EventToolResult {
			results[e.CallID] = e
		}
	}
	if len(results) != 3 || results["n1"].IsError || results["n2"].IsError || !results["n3"].IsError {
		t.Errorf("got tool results %+v, want navigate ok, blue ok, green refused", results)
	}
	reqs := model.requests()
	if names := toolNames(reqs[1].Tools); names != "configure_car" {
		t.Errorf("second model call offered %q, want the new page's configure_car (listed through b)", names)
	}
	if a.ConnCount() != 0 {
		t.Errorf("a still has %d sockets", a.ConnCount())
	}

	// The turn ended on a, which let the session go: b takes it over, and the next turn runs on b.
	waitFor(t, "b to take the session over", func() bool { return isLive(b, sess.SessionID) })
	r, err := second.chat("and now?")
	if err != nil || r.Text != "Answered where the tab is." {
		t.Fatalf("got %+v %v", r, err)
	}
	seen = append(seen, second.eventsUntil(wire.EventTurnEnd)...)
	checkNothingLostOrDoubled(t, seen, storedEvents(t, shared, sess.SessionID))
}

// TestTurnOnAnotherReplicaWaitsForTheNewPagesLateTools: as above, but the new page on b
// registers its tools only after it resumed the session (once its data has loaded): a's next
// model call is offered them (b waits for them when a asks for the page's tools).
func TestTurnOnAnotherReplicaWaitsForTheNewPagesLateTools(t *testing.T) {
	navigated := make(chan struct{})
	goTool := pageTestTool{tool: wire.PageTool{Name: "open_configurator", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	goTool.fn = func(context.Context, map[string]any) (any, error) {
		close(navigated)
		return navigatingResult("navigating to the configurator"), nil
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n1", "open_configurator", `{}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n2", "configure_car", `{"color":"blue"}`)}}, nil
		default:
			return &llm.Response{Text: "Your car is blue."}, nil
		}
	}}
	_, a, b := twoReplicas(t, model, func(c *Config) { c.LateTools = 5 * time.Second })
	first := openPage(t, a, testOrigin, goTool)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("take me to the configurator and make it blue") }()
	<-navigated
	seen := first.eventsUntil(wire.EventToolResult)
	dropSocket(first, true)

	second := openPage(t, b, testOrigin) // no tools yet
	last := lastSeqOf(seen)
	if res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed || res.Running == nil {
		t.Fatalf("got %+v, want the session resumed on b with a's turn running", res)
	}
	// Its data loads while the turn waits for its tools.
	waitFor(t, "the turn to wait for the new page's tools", func() bool { return waitingIn("pagemcp.(*Client).AwaitTools") })
	second.registerLate(pageTestTool{
		tool: wire.PageTool{Name: "configure_car", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn:   func(context.Context, map[string]any) (any, error) { return "color set", nil },
	})
	seen = append(seen, second.eventsUntil(wire.EventTurnEnd)...)
	if end := seen[len(seen)-1]; end.StopReason != wire.StopEnd || end.Text != "Your car is blue." {
		t.Fatalf("got turn_end %+v, want the turn finished with the new page", end)
	}
	if names := toolNames(model.requests()[1].Tools); names != "configure_car" {
		t.Errorf("the model call after the navigation offered %q, want the new page's late configure_car", names)
	}
	if calls := second.callsMade(); len(calls) != 1 || calls[0].Name != "configure_car" {
		t.Errorf("got calls on the new page %+v, want configure_car", calls)
	}
}

// TestStopFromAnotherReplica: the tab reconnects to b while a runs its turn (waiting on a slow
// page tool that the tab ran from b); agent/cancel on b cancels a's turn, and the page on b
// gets the cancellation of the tool call and the turn's end.
func TestStopFromAnotherReplica(t *testing.T) {
	started, slow := slowTool()
	gate, model := gatedSlowCall("unreachable")
	_, a, b := twoReplicas(t, model, nil)
	sess, seen := startThenDrop(t, a, slow)

	second := openPage(t, b, testOrigin, slow)
	last := lastSeqOf(seen)
	res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Running == nil {
		t.Fatalf("got %+v, want the running turn resumed on b", res)
	}
	close(gate)
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("the slow tool never started on the page on b")
	}
	var cr wire.CancelResult
	if err := second.peer.Call(context.Background(), wire.MethodAgentCancel, wire.CancelParams{}, &cr); err != nil {
		t.Fatalf("agent/cancel on b: %v", err)
	}
	if cr.TurnID != res.Running.TurnID {
		t.Errorf("cancelled %q, want %q", cr.TurnID, res.Running.TurnID)
	}
	evs := second.eventsUntil(wire.EventTurnEnd)
	if end := evs[len(evs)-1]; end.StopReason != wire.StopCancelled {
		t.Fatalf("got turn_end %+v, want cancelled", end)
	}
	select {
	case <-second.cancel:
	case <-time.After(waitLimit):
		t.Error("the page on b never got notifications/cancelled for the running tool call")
	}
}

// TestSecondTabOnAnotherReplicaForks: a second tab of a session whose tab is alive on a (with
// a turn running) gets a fork on b, and the turn's tool calls never go to it.
// slowTool is a page tool that runs until its call is cancelled; started gets a value when
// it starts.
func slowTool() (started chan struct{}, tool pageTestTool) {
	started = make(chan struct{}, 1)
	return started, pageTestTool{tool: wire.PageTool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(ctx context.Context, _ map[string]any) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
}

// gatedSlowCall is a model that, once gate is closed, calls slow, then answers text.
func gatedSlowCall(text string) (gate chan struct{}, model *scriptModel) {
	gate = make(chan struct{})
	return gate, &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			<-gate
			return &llm.Response{ToolCalls: []chat.ToolCall{call("s1", "slow", `{}`)}}, nil
		}
		return &llm.Response{Text: text}, nil
	}}
}

// startThenDrop opens a page on ts with tool, starts a turn and drops the socket once the
// turn has started (the tab reloads): the turn goes on on ts.
func startThenDrop(t *testing.T, ts *testServer, tool pageTestTool) (wire.SessionResult, []event) {
	t.Helper()
	first := openPage(t, ts, testOrigin, tool)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("do the slow thing") }()
	seen := first.eventsUntil(wire.EventTurnStart)
	dropSocket(first, false)
	return sess, seen
}

// gatedText is a model whose first answer, first, comes once gate is closed; every later
// answer is rest.
func gatedText(first, rest string) (gate chan struct{}, model *scriptModel) {
	gate = make(chan struct{})
	return gate, &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			<-gate
			return &llm.Response{Text: first}, nil
		}
		return &llm.Response{Text: rest}, nil
	}}
}

func TestSecondTabOnAnotherReplicaForks(t *testing.T) {
	gate, model := gatedText("done", "done")
	_, a, b := twoReplicas(t, model, nil)
	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("hello") }()
	first.eventsUntil(wire.EventTurnStart)
	dup := openPage(t, b, testOrigin, echoTool())
	res := dup.session(wire.SessionParams{SessionID: sess.SessionID})
	if !res.Forked || res.SessionID == sess.SessionID {
		t.Fatalf("got %+v, want a fork", res)
	}
	close(gate)
	first.eventsUntil(wire.EventTurnEnd)
}

// slowCallOnB starts a turn on a whose tab then resumes on b (a's turn running), opens the
// gate, and returns once the model's slow call runs in the page on b: the session, the
// events seen before b, and the page on b.
func slowCallOnB(t *testing.T, a, b *testServer, gate, started chan struct{}, slow pageTestTool) (wire.SessionResult, []event, *fakePage) {
	t.Helper()
	sess, seen := startThenDrop(t, a, slow)
	onB := openPage(t, b, testOrigin, slow)
	resumeRunningOn(t, onB, sess.SessionID, seen, gate, started)
	return sess, seen, onB
}

// TestRoutedCallFailsWhenThePagesReplicaDies: a turn on a waits for a tool call running in a
// page on b; b stops answering (it died with the socket): a's call fails as disconnected
// within a few seconds (not the tool's hard maximum), and the turn goes on without the page.
func TestRoutedCallFailsWhenThePagesReplicaDies(t *testing.T) {
	started, slow := slowTool()
	gate, model := gatedSlowCall("The page went away.")
	shared, a, b := twoReplicas(t, model, func(c *Config) {
		c.ToolTimeout, c.ToolMaxTimeout = time.Hour, time.Hour // only the probe can end the call
		c.ReconnectWait = 100 * time.Millisecond
	})
	sess, _, _ := slowCallOnB(t, a, b, gate, started, slow)
	b.relay.close() // b no longer hears a: as if it died with its socket
	waitFor(t, "a's turn to end", func() bool {
		evs := storedEvents(t, shared, sess.SessionID)
		return len(evs) > 0 && strings.Contains(string(evs[len(evs)-1].Data), wire.EventTurnEnd)
	})
	evs := storedEvents(t, shared, sess.SessionID)
	var result string
	for _, e := range evs {
		if strings.Contains(string(e.Data), `"type":"tool_result"`) {
			result = string(e.Data)
		}
	}
	if !strings.Contains(result, `"isError":true`) || !strings.Contains(result, "disconnected") {
		t.Errorf("got tool result %s, want the call failed as disconnected", result)
	}
}

// TestTakeOverAfterThePageMovedOn: the tab's turn runs on a; the tab reconnects to b, which
// serves it as a proxy; the turn ends and b starts taking the session over; meanwhile the
// page asks agent/session for a new conversation. The take-over, finishing after that, must
// leave the socket to the new session: the page's next turn runs there. (Found by the page
// fuzzer with two replicas: "agent/chat answered before its turn_end reached the page", the
// turn having run in the session the take-over bound.)
func TestTakeOverAfterThePageMovedOn(t *testing.T) {
	gate, model := gatedText("first answer", "answered in the new conversation")
	_, a, b := twoReplicas(t, model, nil)
	paused := make(chan *proxy, 1)
	resume := make(chan struct{})
	b.takeOverHook = func(px *proxy) {
		paused <- px
		<-resume
	}

	old, second := proxiedTurn(t, a, b)
	close(gate) // the turn ends on a, which lets the session go: b takes it over
	var px *proxy
	select {
	case px = <-paused:
	case <-time.After(waitLimit):
		t.Fatal("b did not take the session over")
	}
	fresh := second.session(wire.SessionParams{})
	if fresh.SessionID == old.SessionID || fresh.Resumed {
		t.Fatalf("got %+v, want a new session", fresh)
	}
	close(resume)
	<-px.taken

	conns := serverConns(b.Server)
	var c *pageConn
	for _, pc := range conns {
		c = pc
	}
	if n := len(conns); n != 1 {
		t.Fatalf("b serves %d sockets, want 1", n)
	}
	if s := c.boundSession(); s == nil || s.id != fresh.SessionID {
		got := "no session"
		if s != nil {
			got = s.id
		}
		t.Fatalf("the socket is bound to %s (the old session is %s), want the new session %s", got, old.SessionID, fresh.SessionID)
	}
	res, err := second.chat("and now?")
	if err != nil || res.Text != "answered in the new conversation" {
		t.Fatalf("got %+v %v", res, err)
	}
	stored := storedEvents(t, b.store, fresh.SessionID)
	if len(stored) == 0 || !strings.Contains(string(stored[len(stored)-1].Data), res.TurnID) {
		t.Errorf("the turn %s is not the last of the new session's log (%d events)", res.TurnID, len(stored))
	}
}

// TestFailedSessionKeepsTheProxiedSession: a socket that serves a turn running on another
// replica asks for a session that does not exist: the request fails and the socket goes on
// serving the session it had (its events, up to the turn's end), as a socket of a session
// live on its own replica does (TestFailedSessionKeepsTheSocketsSession). The page fuzzer
// found the proxy ended before the lookup, and the page cut off from its turn.
func TestFailedSessionKeepsTheProxiedSession(t *testing.T) {
	gate, model := gatedText("the end of the turn", "later")
	_, a, b := twoReplicas(t, model, nil)
	sess, second := proxiedTurn(t, a, b)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := second.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: randomID(16)}, nil)
	if !errors.Is(err, wire.ErrSessionNotFound) {
		t.Fatalf("asking for an unknown session: got %v, want %v", err, wire.ErrSessionNotFound)
	}
	close(gate)
	end := second.eventsUntil(wire.EventTurnEnd)
	if e := end[len(end)-1]; e.SessionID != sess.SessionID {
		t.Fatalf("turn_end of session %s, want %s", e.SessionID, sess.SessionID)
	}
}

// A page that resumes on b, with lastSeq, a session whose turn runs on a, while the store
// answers b's Load but not its read of the events to replay, is told the store is down, not
// served from after a gap. Once the store answers, the same request replays them and the
// page serves the turn to its end.
func TestProxiedResumeWhoseReplayCannotBeReadSaysSo(t *testing.T) {
	gate, model := gatedText("the end of the turn", "later")
	var flaky *flakyStore
	_, a, b := twoReplicasVia(t, model, nil, flakyB(&flaky))
	sess, seen, second := turnLeftOnA(t, a, b)
	zero := int64(0)
	flaky.eventsDown.Store(true)
	refusedStoreDown(t, second, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &zero}, "a proxied resume whose replay cannot be read")

	flaky.eventsDown.Store(false)
	if res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &zero}); !res.Resumed || res.Running == nil {
		t.Fatalf("the same request once the store answers: got %+v, want the session resumed with its turn running on a", res)
	}
	if replayed := second.eventsUntil(wire.EventTurnStart); replayed[0].Seq != 1 || lastSeqOf(replayed) != lastSeqOf(seen) {
		t.Errorf("replayed seqs %d..%d, want 1..%d", replayed[0].Seq, lastSeqOf(replayed), lastSeqOf(seen))
	}
	close(gate)
	if end := second.eventsUntil(wire.EventTurnEnd); end[len(end)-1].SessionID != sess.SessionID {
		t.Errorf("turn_end of session %s, want %s", end[len(end)-1].SessionID, sess.SessionID)
	}
}

// TestTakeOverWhoseReplayCannotBeReadSendsThePageBack: b takes over a session whose turn
// ended on a, for the socket that served the turn, which missed the turn's last events (b's
// bus connection dropped) while the store does not give b those events (nor the session's
// tail): the socket is sent back to resume (4000), not attached over a gap that it would
// never see filled.
func TestTakeOverWhoseReplayCannotBeReadSendsThePageBack(t *testing.T) {
	gate, model := gatedText("first answer", "later")
	var flaky *flakyStore
	_, a, b := twoReplicasVia(t, model, nil, flakyB(&flaky))
	_, second := proxiedTurn(t, a, b)
	var px *proxy
	for _, p := range relayProxies(b.Server) {
		px = p
	}
	proxyUnsub(px)() // what a publishes from now on does not reach the proxy
	flaky.eventsDown.Store(true)
	close(gate) // the turn ends on a, which lets the session go: b takes it over
	second.waitSentBack()
}

// TestYieldKeepsASessionATabHereHolds: a proxied socket's agent/chat asks the holder to let
// the session go; when a tab on the holder has the session now (it resumed it there after
// the turn ended), the holder keeps it and says fork. It answered "released" while still
// holding the session and its claim, and the proxied page's chat then waited out the claim
// (the page fuzzer on redis-server: "agent/session not answered within 10s").
func TestYieldKeepsASessionATabHereHolds(t *testing.T) {
	shared, a, _ := twoReplicas(t, echoUserText(), nil)
	p, ls, _ := chattedOnce(t, a)
	p.eventsUntil(wire.EventTurnEnd)
	if rep := yieldSession(a.Server, ls.id); rep.Status != stFork {
		t.Fatalf("yield of a session a live tab holds here: got %q, want %q", rep.Status, stFork)
	}
	heldByA(t, shared, a, ls.id)

	dropSocket(p, true)
	waitFor(t, "the session to be let go", func() bool { return isEvicted(ls) })
	if rep := yieldSession(a.Server, ls.id); rep.Status != stAbsent {
		t.Errorf("yield of a session let go: got %q, want %q", rep.Status, stAbsent)
	}
}

// turnLeftOnA starts a turn on a from a page that then drops (the model's first answer must
// wait for a gate), and opens a second page on b. It returns the session, the events the
// first page saw and the second page.
func turnLeftOnA(t *testing.T, a, b *testServer) (wire.SessionResult, []event, *fakePage) {
	t.Helper()
	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("hello") }()
	seen := first.eventsUntil(wire.EventTurnStart)
	dropSocket(first, false)
	return sess, seen, openPage(t, b, testOrigin, echoTool())
}

// proxiedTurn starts a turn on a from a page that then drops (the model's first answer must
// wait for a gate), and resumes its session on b from a second page, which then serves the
// turn running on a (a proxy).
func proxiedTurn(t *testing.T, a, b *testServer) (wire.SessionResult, *fakePage) {
	t.Helper()
	sess, seen, second := turnLeftOnA(t, a, b)
	last := lastSeqOf(seen)
	if res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed || res.Running == nil {
		t.Fatalf("got %+v, want the session resumed on b with its turn running on a", res)
	}
	return sess, second
}

// TestTabResumesWhenItsProxyReplicaDies: the turn runs on a, the tab's socket is on b (it
// reloaded there), and b dies (kill -9: it hears nothing more and its socket is gone without a
// word). The tab comes back through c: a pings the old page through b, gets no answer, and
// gives the turn to the page on c, which resumes the session with the running turn. An outside
// test saw c give up on a's answer first (both waited 3 s), wait out the claim and fork the tab
// away from its own running turn.
func TestTabResumesWhenItsProxyReplicaDies(t *testing.T) {
	started, slow := slowTool()
	gate, model := gatedSlowCall("Done after all.")
	shared, a, b := twoReplicas(t, model, nil)
	c := newQuietServer(t, model, func(cfg *Config) {
		cfg.Store = shared
		cfg.OwnerID = "replica-c"
	})
	sess, seen, onB := slowCallOnB(t, a, b, gate, started, slow)
	seen = append(seen, onB.eventsUntil(wire.EventToolCall)...)
	b.relay.dead.Store(true) // b is killed: it says nothing more (not that its socket went)
	b.relay.close()          // and hears nothing: a's requests to it go unanswered
	dropSocket(onB, false)

	onC := openPage(t, c, testOrigin, echoTool())
	last := lastSeqOf(seen)
	res := onC.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID || res.Running == nil {
		t.Fatalf("got %+v, want the session resumed on c with a's turn running (not a fork)", res)
	}
	seen = append(seen, onC.eventsUntil(wire.EventTurnEnd)...)
	if end := seen[len(seen)-1]; end.StopReason != wire.StopEnd || end.Text != "Done after all." {
		t.Errorf("got turn_end %+v, want the turn answered on c", end)
	}
}

// resumeRunningOn resumes session id on page onB after the events seen, which must get the
// running turn, then lets the slow tool go (gate) and waits until it started on onB.
func resumeRunningOn(t *testing.T, onB *fakePage, id string, seen []event, gate, started chan struct{}) {
	t.Helper()
	last := lastSeqOf(seen)
	if res := onB.session(wire.SessionParams{SessionID: id, LastSeq: &last}); res.Running == nil {
		t.Fatalf("got %+v, want the running turn served on b", res)
	}
	close(gate)
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("the slow tool never started on the page on b")
	}
}
