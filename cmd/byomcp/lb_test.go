package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Several replicas behind a real HAProxy (lb_harness_test.go), no stickiness: a running turn
// follows its tab to whichever replica the balancer picks. Every page here dials the balancer,
// never a replica; the X-Byomcp-Replica header says where it landed.

// lastUser is the text of the last user message of a model request.
func lastUser(req llmtest.RecordedRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// lastToolCallName is the name of the tool the model called last in req's history.
func lastToolCallName(req llmtest.RecordedRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if calls := req.Messages[i].ToolCalls; len(calls) > 0 {
			return calls[len(calls)-1].Name
		}
	}
	return ""
}

func offered(req llmtest.RecordedRequest, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// dialLB opens a page socket through the balancer, retrying while no replica takes it (one
// is restarting, or the balancer has not noticed a dead one yet).
func dialLB(tb testing.TB, c *lbCluster, onEvent func(lbEvent), tools ...lbTool) *lbPage {
	tb.Helper()
	deadline := time.Now().Add(procWait)
	for {
		p, err := dialVia(tb, c.url, onEvent, tools...)
		if err == nil {
			p.replica = c.nameOf(p.replica)
			if p.replica == "" {
				tb.Fatalf("the balancer's answer to the upgrade does not name the replica (%s)", replicaHeader)
			}
			return p
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no socket through the balancer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dialLBNotOn opens a page socket through the balancer that lands on a replica other than
// avoid: with round robin, the next one does; a socket that still lands on avoid (another
// request took the turn) is closed before it says anything, and the page dials again.
func dialLBNotOn(tb testing.TB, c *lbCluster, avoid string, onEvent func(lbEvent), tools ...lbTool) *lbPage {
	tb.Helper()
	for range 10 {
		p := dialLB(tb, c, onEvent, tools...)
		if p.replica != avoid {
			return p
		}
		p.close()
	}
	tb.Fatalf("10 sockets through the balancer all landed on %s", avoid)
	return nil
}

func mustSession(tb testing.TB, p *lbPage, params wire.SessionParams) wire.SessionResult {
	tb.Helper()
	res, err := p.session(params)
	if err != nil {
		tb.Fatalf("agent/session on %s: %v", p.replica, err)
	}
	return res
}

// chatAsync sends agent/chat and does not wait: a page that moves never gets its answer.
func chatAsync(p *lbPage, text string) <-chan error {
	errc := make(chan error, 1)
	go func() {
		var res wire.ChatResult
		errc <- p.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: text, ClientTurnID: text}, &res)
	}()
	return errc
}

func chatAndWait(tb testing.TB, p *lbPage, text string) wire.ChatResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var res wire.ChatResult
	if err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: text}, &res); err != nil {
		tb.Fatalf("agent/chat %q on %s: %v", text, p.replica, err)
	}
	return res
}

// waitEvent waits until the log has an event that match accepts and returns it.
func waitEvent(t *testing.T, log *eventLog, what string, match func(lbEvent) bool) lbEvent {
	t.Helper()
	var got lbEvent
	ok := log.waitFor(func(evs []lbEvent) bool {
		for _, e := range evs {
			if match(e) {
				got = e
				return true
			}
		}
		return false
	}, nil)
	if !ok {
		t.Fatalf("no %s within %s; the page got %+v", what, procWait, log.all())
	}
	return got
}

// wantLogClean fails the test on doubled, reordered or lost events.
func wantLogClean(t *testing.T, name string, evs []lbEvent) {
	t.Helper()
	for _, p := range checkLog(evs) {
		t.Errorf("%s: %s", name, p)
	}
}

// dumpOnFailure prints the replicas' and the balancer's logs when the test failed.
func dumpOnFailure(t *testing.T, c *lbCluster) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, r := range c.replicas {
			logs := r.logs()
			if len(logs) > 20000 {
				logs = "…" + logs[len(logs)-20000:]
			}
			t.Logf("logs of %s:\n%s", r.name, logs)
		}
		t.Logf("%s:\n%s", c.lb.kind, c.lb.logs.String())
	})
}

// TestLBHarnessAlternatesAndNamesReplicas checks the harness itself: with nothing else
// connecting, round robin alternates the sockets between the two replicas, and the replica
// HAProxy names is the one whose byomcp_open_sockets counts the socket.
func TestLBHarnessAlternatesAndNamesReplicas(t *testing.T) {
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Text: "Hi."}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)
	landed := map[string]int{}
	var order []string
	for range 6 {
		p := dialLB(t, c, func(lbEvent) {})
		mustSession(t, p, wire.SessionParams{}) // the socket is served once this is answered
		landed[p.replica]++
		order = append(order, p.replica)
	}
	for i := 1; i < len(order); i++ {
		if order[i] == order[i-1] {
			t.Errorf("sockets landed on %v, want round robin to alternate", order)
			break
		}
	}
	for _, r := range c.replicas {
		if got := r.metric(t, "byomcp_open_sockets"); got != float64(landed[r.name]) {
			t.Errorf("%s has %v sockets open, HAProxy sent it %d", r.name, got, landed[r.name])
		}
	}
}

// TestLBNavigationLandsOnOtherReplica: a page tool navigates (its result says
// byomcp/navigating, then the page closes its socket); the next page lands on the other
// replica and the turn goes on with the new page's tools, routed to it.
func TestLBNavigationLandsOnOtherReplica(t *testing.T) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		switch {
		case lastUser(req) != "take me to checkout and pay":
			return llmtest.Step{Text: "You are welcome."}
		case req.LastMessage().Role == "user":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_nav", Name: "open_checkout", Args: `{}`}}}
		case lastToolCallName(req) == "open_checkout":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_pay", Name: "pay", Args: `{}`}}}
		default:
			return llmtest.Step{Text: "Paid on the checkout page."}
		}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	var firstEvents, secondEvents []lbEvent
	var mu sync.Mutex
	var navigated, paidOnOld, paidOnNew atomic.Int32
	first := dialLB(t, c, func(e lbEvent) { mu.Lock(); firstEvents = append(firstEvents, e); mu.Unlock(); log.add(e) },
		lbTool{name: "open_checkout", call: func(context.Context) map[string]any {
			navigated.Add(1)
			r := textResult("Opening the checkout page.")
			r["_meta"] = map[string]any{wire.MetaNavigating: true}
			return r
		}},
		lbTool{name: "pay", call: func(context.Context) map[string]any { paidOnOld.Add(1); return textResult("wrong page") }})
	sess := mustSession(t, first, wire.SessionParams{})
	chatAsync(first, "take me to checkout and pay")
	waitEvent(t, log, "tool_result of open_checkout", func(e lbEvent) bool { return e.Type == wire.EventToolResult && e.Name == "open_checkout" })
	first.close() // the browser leaves the page

	second := dialLBNotOn(t, c, first.replica, func(e lbEvent) { mu.Lock(); secondEvents = append(secondEvents, e); mu.Unlock(); log.add(e) },
		lbTool{name: "pay", call: func(context.Context) map[string]any { paidOnNew.Add(1); return textResult("paid") }})
	last := log.lastSeq()
	res := mustSession(t, second, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("the page on %s got %+v, want the session resumed (the turn runs on %s)", second.replica, res, first.replica)
	}
	end := waitEvent(t, log, "turn_end", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd })
	if end.StopReason != wire.StopEnd || end.Text != "Paid on the checkout page." {
		t.Errorf("got turn_end %+v, want the turn answered", end)
	}
	if navigated.Load() != 1 || paidOnNew.Load() != 1 || paidOnOld.Load() != 0 {
		t.Errorf("open_checkout ran %d times, pay %d times on the new page and %d on the old; want 1, 1, 0",
			navigated.Load(), paidOnNew.Load(), paidOnOld.Load())
	}
	reqs := fake.Requests()[:min(3, len(fake.Requests()))]
	if len(reqs) != 3 {
		t.Fatalf("the model was called %d times, want 3", len(reqs))
	}
	if !offered(reqs[1], "pay") || offered(reqs[1], "open_checkout") {
		t.Errorf("the model call after the navigation offered %+v, want the new page's tools (pay only)", reqs[1].Tools)
	}
	if got := reqs[2].LastMessage(); got.Role != "tool" || !strings.Contains(got.Content, "paid") {
		t.Errorf("the model got %+v for pay, want the new page's answer", got)
	}
	mu.Lock()
	all := append(append([]lbEvent(nil), firstEvents...), secondEvents...)
	got := append([]lbEvent(nil), secondEvents...)
	mu.Unlock() // the socket's read loop takes it for each event
	wantLogClean(t, "the tab", all)
	for _, e := range got {
		if e.Seq <= last {
			t.Errorf("the new page got seq %d (%s) again, after lastSeq %d", e.Seq, e.Type, last)
		}
	}
	if got := lastSeen2(all); got != end.Seq {
		t.Errorf("the tab's last seq is %d, want the turn_end's %d", got, end.Seq)
	}
	if r := chatAndWait(t, second, "thanks"); r.Text != "You are welcome." {
		t.Errorf("the next turn: got %+v, want it answered", r)
	}
}

// lastSeen2 is the highest seq of evs.
func lastSeen2(evs []lbEvent) int64 {
	var m int64
	for _, e := range evs {
		m = max(m, e.Seq)
	}
	return m
}

// TestLBTabMovesBackAndForth repeats the navigation 20 times, the way a visitor goes through a
// shop: each turn navigates, the next page lands on the other replica and the turn goes on
// there; when the turn has ended the page leaves at once (a link), and the next page lands on
// the other replica again. The session resumes every time (never a fork), every tool runs on
// the page that is open, and the tab gets every event once.
func TestLBTabMovesBackAndForth(t *testing.T) {
	const rounds = 20
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		switch {
		case req.LastMessage().Role == "user":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "open_next", Args: `{}`}}}
		case lastToolCallName(req) == "open_next":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "read_page", Args: `{}`}}}
		default:
			return llmtest.Step{Text: "Done with " + lastUser(req) + "."}
		}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	var sessionID, prev string
	var last int64
	open := func(round int) *lbPage {
		t.Helper()
		p := dialLBNotOn(t, c, prev, log.add,
			lbTool{name: "open_next", call: func(context.Context) map[string]any {
				r := textResult("Opening the next page.")
				r["_meta"] = map[string]any{wire.MetaNavigating: true}
				return r
			}},
			lbTool{name: "read_page", call: func(context.Context) map[string]any {
				return textResult(fmt.Sprintf("page of round %d", round))
			}})
		params := wire.SessionParams{SessionID: sessionID}
		if sessionID != "" {
			last = log.lastSeq()
			params.LastSeq = &last
		}
		res := mustSession(t, p, params)
		if sessionID != "" && (!res.Resumed || res.Forked || res.SessionID != sessionID) {
			t.Fatalf("round %d: the page on %s (the last was on %s) got resumed %v forked %v, want the session resumed", round, p.replica, prev, res.Resumed, res.Forked)
		}
		sessionID, prev = res.SessionID, p.replica
		return p
	}
	for round := range rounds {
		page := open(round)
		text := fmt.Sprintf("round %d", round)
		chatAsync(page, text)
		start := waitEvent(t, log, "turn_start of "+text, func(e lbEvent) bool { return e.Type == wire.EventTurnStart && e.Text == text })
		waitEvent(t, log, "open_next's result in "+text, func(e lbEvent) bool {
			return e.Type == wire.EventToolResult && e.TurnID == start.TurnID && e.Name == "open_next"
		})
		page.close() // the tool navigated
		page = open(round)
		end := waitEvent(t, log, "turn_end of "+text, func(e lbEvent) bool { return e.Type == wire.EventTurnEnd && e.TurnID == start.TurnID })
		if end.StopReason != wire.StopEnd || end.Text != "Done with "+text+"." {
			t.Fatalf("round %d: got turn_end %+v, want it answered", round, end)
		}
		page.close() // a link, as soon as the answer is there
	}
	evs := log.all()
	wantLogClean(t, "the tab", evs)
	for _, e := range evs {
		if e.Type == wire.EventToolResult && e.IsError {
			t.Errorf("tool call %s (%s) failed: %s", e.CallID, e.Name, e.Text)
		}
	}
}

// TestLBReloadMidStreamLandsOnOtherReplica: the socket drops while the model streams; the
// reload lands on the other replica and gets the rest of the answer once.
func TestLBReloadMidStreamLandsOnOtherReplica(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if lastUser(req) == "count" {
			return llmtest.Step{Text: answer, ChunkDelay: 40 * time.Millisecond}
		}
		return llmtest.Step{Text: "Again."}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	first := dialLB(t, c, log.add)
	sess := mustSession(t, first, wire.SessionParams{})
	chatAsync(first, "count")
	log.waitFor(func(evs []lbEvent) bool {
		n := 0
		for _, e := range evs {
			if e.Type == wire.EventTextDelta {
				n++
			}
		}
		return n >= 3
	}, nil)
	first.close() // reload mid-stream

	var reloaded []lbEvent
	var mu sync.Mutex
	second := dialLBNotOn(t, c, first.replica, func(e lbEvent) { mu.Lock(); reloaded = append(reloaded, e); mu.Unlock(); log.add(e) })
	last := log.lastSeq()
	res := mustSession(t, second, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("the reload on %s got %+v, want the session resumed", second.replica, res)
	}
	end := waitEvent(t, log, "turn_end", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd })
	all := log.all()
	if got := turnText(all, end.TurnID); got != answer {
		t.Errorf("the tab got the text %q over both sockets, want %q once", got, answer)
	}
	if end.StopReason != wire.StopEnd || end.Text != answer {
		t.Errorf("got turn_end %+v, want the whole answer", end)
	}
	wantLogClean(t, "the tab", all)
	mu.Lock()
	for _, e := range reloaded {
		if e.Seq <= last {
			t.Errorf("the reload got seq %d (%s) again, after lastSeq %d", e.Seq, e.Type, last)
		}
	}
	mu.Unlock()
	if r := chatAndWait(t, second, "again"); r.Text != "Again." {
		t.Errorf("the next turn: got %+v", r)
	}
	next := waitEvent(t, log, "the next turn_start", func(e lbEvent) bool { return e.Type == wire.EventTurnStart && e.Seq > end.Seq })
	if next.Seq != end.Seq+1 {
		t.Errorf("the next turn starts at seq %d, want %d", next.Seq, end.Seq+1)
	}
}

// TestLBStopFromOtherReplica: the turn runs on A; the tab reconnects and lands on B, where
// the turn's page tool call now waits on it (routed); agent/cancel sent to B stops the turn on
// A, and the page's tool call is cancelled.
func TestLBStopFromOtherReplica(t *testing.T) {
	gate := make(chan struct{})
	var closeGate sync.Once
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		switch {
		case lastUser(req) == "slow" && req.LastMessage().Role == "user":
			select { // a slow model: answers once the tab has moved
			case <-gate:
			case <-time.After(procWait):
			}
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_wait", Name: "wait_for_user", Args: `{}`}}}
		case req.LastMessage().Role == "tool":
			return llmtest.Step{Text: "Should not be asked: the turn was stopped."}
		default:
			return llmtest.Step{Text: "Fine."}
		}
	}))
	t.Cleanup(fake.Close)
	t.Cleanup(func() { closeGate.Do(func() { close(gate) }) })
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	first := dialLB(t, c, log.add, lbTool{name: "wait_for_user", call: func(context.Context) map[string]any {
		t.Error("the old page's tool was called")
		return textResult("wrong page")
	}})
	sess := mustSession(t, first, wire.SessionParams{})
	chatAsync(first, "slow")
	waitEvent(t, log, "turn_start", func(e lbEvent) bool { return e.Type == wire.EventTurnStart })
	first.close()

	called := make(chan struct{}, 1)
	cancelled := make(chan struct{}, 1)
	second := dialLBNotOn(t, c, first.replica, log.add, lbTool{name: "wait_for_user", call: func(ctx context.Context) map[string]any {
		called <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
		case <-time.After(procWait):
		}
		return textResult("the user did nothing")
	}})
	last := log.lastSeq()
	res := mustSession(t, second, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("the page on %s got %+v, want the session resumed", second.replica, res)
	}
	closeGate.Do(func() { close(gate) })
	select {
	case <-called:
	case <-time.After(procWait):
		t.Fatalf("the turn on %s never called the page's tool on %s", first.replica, second.replica)
	}
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var cr wire.CancelResult
	if err := second.peer.Call(ctx, wire.MethodAgentCancel, wire.CancelParams{}, &cr); err != nil {
		t.Fatalf("agent/cancel on %s: %v", second.replica, err)
	}
	end := waitEvent(t, log, "turn_end", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd })
	if end.StopReason != wire.StopCancelled || cr.TurnID != end.TurnID {
		t.Errorf("got turn_end %+v and cancel result %+v, want the turn cancelled", end, cr)
	}
	select {
	case <-cancelled:
	case <-time.After(procWait):
		t.Error("the page's tool call was never cancelled")
	}
	wantLogClean(t, "the tab", log.all())
	for _, r := range fake.Requests() {
		if r.LastMessage().Role == "tool" {
			t.Errorf("the model was called after the stop: %+v", r.LastMessage())
		}
	}
	if r := chatAndWait(t, second, "and now?"); r.Text != "Fine." {
		t.Errorf("the next turn: got %+v", r)
	}
}

// TestLBKill9OfTheReplicaRunningATurn: the replica running a turn dies; the tab reconnects
// through the balancer and sees the turn closed as interrupted once the claim expires; the
// next turn runs.
func TestLBKill9OfTheReplicaRunningATurn(t *testing.T) {
	gate := make(chan struct{})
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		switch lastUser(req) {
		case "first":
			return llmtest.Step{Text: "First answer."}
		case "hang":
			select { // the model is thinking when the replica dies
			case <-gate:
			case <-time.After(procWait):
			}
			return llmtest.Step{Text: "Never seen."}
		default:
			return llmtest.Step{Text: "Back to normal."}
		}
	}))
	t.Cleanup(fake.Close)
	t.Cleanup(func() { close(gate) })
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	page := dialLB(t, c, log.add)
	sess := mustSession(t, page, wire.SessionParams{})
	if r := chatAndWait(t, page, "first"); r.Text != "First answer." {
		t.Fatalf("turn 1: got %+v", r)
	}
	chatAsync(page, "hang")
	start := waitEvent(t, log, "turn_start of the second turn", func(e lbEvent) bool { return e.Type == wire.EventTurnStart && e.Text == "hang" })
	c.byName[page.replica].kill9(t)
	select {
	case <-page.peer.Done():
	case <-time.After(procWait):
		t.Fatal("the balancer kept the socket of the dead replica open")
	}
	page.close()
	died := time.Now()

	back := dialLBNotOn(t, c, page.replica, log.add)
	last := log.lastSeq()
	res := mustSession(t, back, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("the tab on %s got %+v, want the session resumed", back.replica, res)
	}
	end := waitEvent(t, log, "turn_end of the cut turn", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd && e.TurnID == start.TurnID })
	closed := time.Since(died)
	t.Logf("the cut turn was closed %v after the kill (claim TTL %v)", closed.Round(time.Millisecond), lbClaimTTL)
	if end.StopReason != wire.StopError || !end.Interrupted {
		t.Errorf("got %+v, want turn_end {stopReason: error, interrupted: true}", end)
	}
	// Bounded by the claim's lifetime, with generous slack for a loaded machine: a replica
	// that waited for the default 10 s claim (or a forked page) would go over it.
	if slack := 4 * lbClaimTTL; closed > slack {
		t.Errorf("the cut turn was closed %v after the kill, want within the claim TTL %v (+ slack, %v in all)", closed, lbClaimTTL, slack)
	}
	if r := chatAndWait(t, back, "third"); r.Text != "Back to normal." || r.StopReason != wire.StopEnd {
		t.Errorf("turn 3: got %+v, want it to run", r)
	}
	waitEvent(t, log, "turn_end of turn 3", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd && e.Seq > end.Seq })
	wantLogClean(t, "the tab", log.all())
	if !strings.Contains(c.other(page.replica).logs(), "marked an interrupted turn") {
		t.Errorf("%s did not log the interrupted turn", back.replica)
	}
}

// TestLBKill9AfterAToolRanKeepsTheCall: the scenario of TestKill9AfterAToolRanKeepsTheCall
// on Redis behind HAProxy: the replica running the turn (the tab's own) is killed after a
// page tool answered and before the model's answer, and the tab comes back through the
// balancer on the other replica, which closes the turn once the claim expires.
func TestLBKill9AfterAToolRanKeepsTheCall(t *testing.T) {
	var c *lbCluster
	dial := func(avoid string, tools ...procTool) *procPage {
		for range 10 {
			p := dialPage(t, c.url, tools...)
			p.replica = c.nameOf(p.replica)
			if p.replica == "" {
				t.Fatalf("the balancer's answer to the upgrade does not name the replica (%s)", replicaHeader)
			}
			if p.replica != avoid {
				return p
			}
			p.peer.Close(nil)
			_ = p.peer.Wait()
		}
		t.Fatalf("10 sockets through the balancer all landed on %s", avoid)
		return nil
	}
	kill9AfterAToolRan(t, kill9Scenario{
		start: func(fakeURL string, tools ...procTool) *procPage {
			c = startCluster(t, fakeURL, lbOptions{replicas: 2})
			dumpOnFailure(t, c)
			return dial("", tools...)
		},
		kill: func(p *procPage) { c.byName[p.replica].kill9(t) },
		back: func(killed *procPage, tools ...procTool) *procPage { return dial(killed.replica, tools...) },
	})
}

// TestLBDeployDrainsAReplicaMidTurn: SIGTERM reaches the replica running a turn while the
// model streams; the replica closes the tab's socket at once, the tab reconnects through the
// balancer and lands on the other replica, and the turn goes on where it runs: the rest of the
// text reaches the tab through the other replica, the turn's next page tool call is routed to
// the tab there, the turn is answered (not interrupted), and then the drained replica exits.
func TestLBDeployDrainsAReplicaMidTurn(t *testing.T) {
	const first = "Let me look that up for you in the catalogue of desk lamps first."
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		switch {
		case lastUser(req) != "find a lamp":
			return llmtest.Step{Text: "Here again."}
		case req.LastMessage().Role == "user":
			return llmtest.Step{Text: first, ChunkDelay: 60 * time.Millisecond,
				ToolCalls: []llmtest.FakeCall{{ID: "call_search", Name: "search_lamps", Args: `{}`}}}
		default:
			return llmtest.Step{Text: "The brass lamp."}
		}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2})
	dumpOnFailure(t, c)

	log := newEventLog()
	var searchedOnOld, searchedOnNew atomic.Int32
	page := dialLB(t, c, log.add, lbTool{name: "search_lamps", call: func(context.Context) map[string]any {
		searchedOnOld.Add(1)
		return textResult("wrong page")
	}})
	sess := mustSession(t, page, wire.SessionParams{})
	chatAsync(page, "find a lamp")
	waitEvent(t, log, "a text_delta", func(e lbEvent) bool { return e.Type == wire.EventTextDelta })
	draining := c.byName[page.replica]
	proc := draining.current()
	if err := proc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-page.peer.Done():
	case <-time.After(procWait):
		t.Fatal("the draining replica kept the tab's socket open")
	}
	page.close()

	back := dialLBNotOn(t, c, draining.name, log.add, lbTool{name: "search_lamps", call: func(context.Context) map[string]any {
		searchedOnNew.Add(1)
		return textResult(`[{"name":"Brass lamp","price":89}]`)
	}})
	last := log.lastSeq()
	res := mustSession(t, back, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("the tab on %s got resumed %v forked %v, want the session resumed", back.replica, res.Resumed, res.Forked)
	}
	const answer = first + "\n\nThe brass lamp." // the agent parts the text of two model calls
	end := waitEvent(t, log, "turn_end", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd })
	if end.StopReason != wire.StopEnd || end.Interrupted || end.Text != answer {
		t.Errorf("got turn_end %s %q interrupted %v, want the turn answered by the draining replica", end.StopReason, end.Text, end.Interrupted)
	}
	evs := log.all()
	if got := turnText(evs, end.TurnID); got != answer {
		t.Errorf("the tab got the text %q, want %q once", got, answer)
	}
	wantLogClean(t, "the tab", evs)
	if searchedOnNew.Load() != 1 || searchedOnOld.Load() != 0 {
		t.Errorf("search_lamps ran %d times on the new page and %d on the old one, want 1 and 0", searchedOnNew.Load(), searchedOnOld.Load())
	}
	waitExit(t, proc, draining.name+" after SIGTERM")
	if code := proc.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the drained replica exited with %d, want 0", code)
	}
	if r := chatAndWait(t, back, "again"); r.Text != "Here again." {
		t.Errorf("the next turn: got %+v", r)
	}
}

// lbTab is one browser tab of the rolling-restart test: it chats in a loop, each turn with a
// page tool call; when its socket closes it dials the balancer again and resumes with its
// lastSeq, as the widget does.
type lbTab struct {
	id           int
	c            *lbCluster
	log          *eventLog
	sessionID    string
	page         *lbPage
	sent         []string // clientTurnIds, in order
	problems     []string
	dials        map[string]int // replica → sockets that landed there
	turnErrs     map[string]int // agent/chat errors other than a closed socket, by message
	toolCalls    atomic.Int32
	busyAfterEnd []string      // agent/chat answered -32001 while no turn ran
	trace        []string      // what each socket's agent/session asked and got
	epoch        int           // sockets dialled so far; the events of each are marked with it
	resumedAt    map[int]int64 // epoch → the seq its agent/session answered
	// refusedDraining counts agent/chat refused by a replica that was shutting down.
	refusedDraining atomic.Int32
}

func tabAnswer(cid string) string { return "Answer to " + cid + ": alpha beta gamma delta." }

// connect dials the balancer until a socket resumes (or creates) the session.
func (tab *lbTab) connect(tb testing.TB) bool {
	deadline := time.Now().Add(procWait)
	for time.Now().Before(deadline) {
		tab.epoch++
		epoch := tab.epoch
		onEvent := func(e lbEvent) { e.epoch = epoch; tab.log.add(e) }
		p, err := dialVia(tb, tab.c.url, onEvent, lbTool{name: "lookup", call: func(context.Context) map[string]any {
			tab.toolCalls.Add(1)
			return textResult("found it")
		}})
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		params := wire.SessionParams{SessionID: tab.sessionID}
		if tab.sessionID != "" {
			last := tab.log.lastSeq()
			params.LastSeq = &last
		}
		res, err := p.session(params)
		sent := "none"
		if params.LastSeq != nil {
			sent = fmt.Sprint(*params.LastSeq)
		}
		tab.trace = append(tab.trace, fmt.Sprintf("socket %d on %s: agent/session lastSeq %s: seq %d resumed %v forked %v running %v err %v",
			epoch, p.replica, sent, res.Seq, res.Resumed, res.Forked, res.Running != nil, err))
		if err != nil {
			p.close()
			if errors.Is(err, wsrpc.ErrClosed) || isClosedErr(err) {
				continue // the replica went away meanwhile
			}
			tab.problems = append(tab.problems, fmt.Sprintf("agent/session on %s: %v", p.replica, err))
			return false
		}
		if tab.sessionID != "" && (res.SessionID != tab.sessionID || res.Forked || !res.Resumed) {
			tab.problems = append(tab.problems, fmt.Sprintf("agent/session on %s: got %+v, want session %s resumed", p.replica, res, tab.sessionID[:8]))
			p.close()
			return false
		}
		tab.sessionID = res.SessionID
		tab.resumedAt[epoch] = res.Seq
		tab.page = p
		tab.dials[p.replica]++
		// The events up to res.Seq that the tab missed come right after the result.
		tab.log.waitFor(func([]lbEvent) bool { return tab.log.lastSeq() >= res.Seq }, p.peer.Done())
		return true
	}
	tab.problems = append(tab.problems, "no socket through the balancer")
	return false
}

func isClosedErr(err error) bool {
	return err != nil && (errors.Is(err, wsrpc.ErrClosed) || strings.Contains(err.Error(), "closed") || strings.Contains(err.Error(), "EOF"))
}

// turnOf returns the turn id started for cid, and its turn_end when it has one.
func turnOf(evs []lbEvent, cid string) (turnID string, end lbEvent, ended bool) {
	for _, e := range evs {
		if e.Type == wire.EventTurnStart && e.ClientTurnID == cid {
			turnID = e.TurnID
		}
		if turnID != "" && e.Type == wire.EventTurnEnd && e.TurnID == turnID {
			return turnID, e, true
		}
	}
	return turnID, lbEvent{}, false
}

// run chats until stop is closed, then ends its current turn and returns.
func (tab *lbTab) run(tb testing.TB, stop <-chan struct{}, turnsDone *atomic.Int64) {
	if !tab.connect(tb) {
		return
	}
	for k := 1; ; k++ {
		select {
		case <-stop:
			return
		default:
		}
		cid := fmt.Sprintf("tab%02d-turn%d", tab.id, k)
		tab.sent = append(tab.sent, cid)
		for {
			var busy chan struct{} // closed when agent/chat answers -32001
			if id, _, _ := turnOf(tab.log.all(), cid); id == "" {
				busy = make(chan struct{})
				errc := chatAsync(tab.page, cid)
				go func() {
					err := <-errc
					var rpcErr *wsrpc.Error
					switch {
					case err == nil || isClosedErr(err):
					case errors.As(err, &rpcErr) && rpcErr.Code == wire.CodeTurnInProgress:
						close(busy)
					case errors.As(err, &rpcErr) && rpcErr.Code == wire.CodeCancelledEarly:
					case strings.Contains(err.Error(), "shutting down"):
						// A replica that drains refuses new turns; its socket closes next, and the
						// tab asks again on the replica it lands on.
						tab.refusedDraining.Add(1)
					default:
						tab.log.mu.Lock()
						tab.turnErrs[err.Error()]++
						tab.log.mu.Unlock()
					}
				}()
			}
			page := tab.page
			wake := make(chan struct{})
			go func() {
				select {
				case <-page.peer.Done():
				case <-busy:
				}
				close(wake)
			}()
			if tab.log.waitFor(func(evs []lbEvent) bool { _, _, ended := turnOf(evs, cid); return ended }, wake) {
				turnsDone.Add(1)
				break
			}
			select {
			case <-page.peer.Done():
				page.close()
				if !tab.connect(tb) {
					return
				}
				continue
			case <-busy:
			default:
				tab.problems = append(tab.problems, fmt.Sprintf("%s: no turn_end within %v", cid, procWait))
				return
			}
			// -32001: right, when the chat sent on the socket before came through and its turn
			// runs (its turn_start is on the way); wrong, when no turn runs: the tab has every
			// turn_end, and a visitor would be told the assistant is busy.
			grace := make(chan struct{})
			timer := time.AfterFunc(3*time.Second, func() { close(grace) })
			started := tab.log.waitFor(func(evs []lbEvent) bool { id, _, _ := turnOf(evs, cid); return id != "" }, grace)
			timer.Stop()
			if !started {
				tab.busyAfterEnd = append(tab.busyAfterEnd, fmt.Sprintf("%s on %s: -32001 (a turn is running) though the tab had the last turn's turn_end at seq %d and no turn started in 3 s",
					cid, page.replica, tab.log.lastSeq()))
			}
		}
	}
}

// TestLBRollingRestartWhile50TabsChat: three replicas are restarted one after the other
// (SIGTERM, wait for the exit, start again on the same port) while 50 tabs chat through the
// balancer: every tab's events come once each, in order, and every turn it started ends,
// answered or marked interrupted.
func TestLBRollingRestartWhile50TabsChat(t *testing.T) {
	const tabs = 50
	fake := llmtest.New(llmtest.NoRecording(), llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.LastMessage().Role == "user" {
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "lookup", Args: `{}`}}, ChunkDelay: 5 * time.Millisecond}
		}
		return llmtest.Step{Text: tabAnswer(lastUser(req)), ChunkDelay: 15 * time.Millisecond}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 3})
	dumpOnFailure(t, c)

	stop := make(chan struct{})
	var turnsDone atomic.Int64
	all := make([]*lbTab, tabs)
	var wg sync.WaitGroup
	for i := range all {
		all[i] = &lbTab{id: i, c: c, log: newEventLog(), dials: map[string]int{}, turnErrs: map[string]int{}, resumedAt: map[int]int64{}}
		wg.Add(1)
		go func(tab *lbTab) {
			defer wg.Done()
			tab.run(t, stop, &turnsDone)
		}(all[i])
	}
	waitTurns := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(procWait)
		for turnsDone.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d turns ended, want %d", turnsDone.Load(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitTurns(tabs)
	for _, r := range c.replicas {
		before := turnsDone.Load()
		r.stop(t)
		r.start(t)
		c.waitInService(r)
		t.Logf("%s restarted; %d turns ended meanwhile", r.name, turnsDone.Load()-before)
		waitTurns(turnsDone.Load() + tabs/2) // the tabs keep chatting between restarts
	}
	waitTurns(turnsDone.Load() + tabs)
	close(stop)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(2 * procWait):
		t.Fatal("the tabs did not finish their last turns")
	}

	var answered, interrupted, dialsTotal, refused, failedTools int
	dialsBy := map[string]int{}
	for _, tab := range all {
		name := fmt.Sprintf("tab %d", tab.id)
		for _, p := range tab.problems {
			evs := tab.log.all()
			t.Errorf("%s: %s; its sockets:\n%s\nits last events: %+v", name, p, strings.Join(tab.trace, "\n"), evs[max(0, len(evs)-6):])
		}
		for _, b := range tab.busyAfterEnd {
			t.Errorf("%s: %s", name, b)
		}
		for msg, n := range tab.turnErrs {
			t.Errorf("%s: agent/chat failed %d times: %s", name, n, msg)
		}
		evs := tab.log.all()
		if bad := checkLog(evs); len(bad) > 0 {
			t.Errorf("%s: %d events doubled, out of order or lost; its sockets:\n%s\nthe first: %s", name, len(bad), strings.Join(tab.trace, "\n"), strings.Join(bad[:min(len(bad), 5)], "\n"))
		}
		// A tool call made while the tab was connected (after its socket's agent/session) must
		// reach the tab wherever the turn runs; only a socket that closes may fail it.
		calls := map[string]lbEvent{}
		for _, e := range evs {
			switch {
			case e.Type == wire.EventToolCall:
				calls[e.CallID] = e
			case e.Type == wire.EventToolResult && e.IsError:
				failedTools++
				if call, ok := calls[e.CallID]; ok && call.epoch == e.epoch && call.Seq > tab.resumedAt[call.epoch] {
					t.Errorf("%s: tool call %s (seq %d) failed while the tab stayed on its socket: %s", name, e.CallID, call.Seq, e.Text)
				}
			}
		}
		starts := map[string]int{}
		for _, e := range evs {
			if e.Type == wire.EventTurnStart {
				starts[e.ClientTurnID]++
			}
		}
		var turnBad []string // per turn; the first few are shown
		for _, cid := range tab.sent {
			if starts[cid] > 1 {
				turnBad = append(turnBad, fmt.Sprintf("%s started %d turns, want 1", cid, starts[cid]))
			}
			turnID, end, ended := turnOf(evs, cid)
			switch {
			case turnID == "" && len(tab.problems) == 0:
				turnBad = append(turnBad, fmt.Sprintf("%s never started", cid))
			case turnID == "":
			case !ended:
				if len(tab.problems) == 0 {
					turnBad = append(turnBad, fmt.Sprintf("%s (turn %s) has no turn_end", cid, turnID))
				}
			case end.Interrupted && end.StopReason == wire.StopError:
				interrupted++
			case end.StopReason == wire.StopEnd && end.Text == tabAnswer(cid) && turnText(evs, turnID) == tabAnswer(cid):
				answered++
			default:
				turnBad = append(turnBad, fmt.Sprintf("%s ended %s %q with the text %q, want %q once, or interrupted", cid, end.StopReason, end.Text, turnText(evs, turnID), tabAnswer(cid)))
			}
		}
		if len(turnBad) > 0 {
			t.Errorf("%s: %d problems in its %d turns; the first: %s", name, len(turnBad), len(tab.sent), strings.Join(turnBad[:min(len(turnBad), 3)], "; "))
		}
		for r, n := range tab.dials {
			dialsBy[r] += n
			dialsTotal += n
		}
		refused += int(tab.refusedDraining.Load())
		if tab.page != nil && tab.sessionID != "" && len(tab.problems) == 0 {
			// Nothing after what the tab has: the store's seq is its last one. (The tab's own
			// socket goes first, else the check would be a duplicated tab and get a fork.)
			tab.page.close()
			last := tab.log.lastSeq()
			check, err := dialVia(t, c.url, func(lbEvent) {})
			if err != nil {
				t.Fatalf("%s: a last socket: %v", name, err)
			}
			res, err := check.session(wire.SessionParams{SessionID: tab.sessionID, LastSeq: &last})
			if err != nil || res.Seq != last {
				t.Errorf("%s: the session's seq is %d (err %v), the tab's last is %d: events lost", name, res.Seq, err, last)
			}
			check.close()
		}
	}
	t.Logf("%d tabs: %d turns answered, %d interrupted; %d sockets (%v); %d agent/chat refused by a draining replica and asked again; %d tool calls failed by a socket that closed",
		tabs, answered, interrupted, dialsTotal, dialsBy, refused, failedTools)
	if answered == 0 {
		t.Error("no turn was answered")
	}
}
