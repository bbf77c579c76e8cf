package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/console"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
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

// consoleOf is the operator console of ts, wired as `byomcp serve` wires it (Forget is the
// server's), and signed in: do sends it a request as the console's page does.
func consoleOf(t *testing.T, ts *testServer) (do func(method, path string) *httptest.ResponseRecorder) {
	t.Helper()
	const token = "a-console-token-of-the-test"
	con, err := console.New(console.Options{
		Token: token, Store: ts.store, Tabs: func() []console.Tab { return nil }, Feed: console.NewFeed(nil),
		Gatherer: prometheus.Gatherers{}, Forget: ts.Forget,
	})
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path, body string, cookie *http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("X-Byomcp-Console", "1")
		req.Header.Set("Content-Type", "application/json")
		if cookie != nil {
			req.AddCookie(cookie)
		}
		rec := httptest.NewRecorder()
		con.ServeHTTP(rec, req)
		return rec
	}
	rec := send(http.MethodPost, "/console/api/signin", `{"token":"`+token+`"}`, nil)
	cookies := rec.Result().Cookies()
	if rec.Code != http.StatusOK || len(cookies) != 1 {
		t.Fatalf("console sign-in: HTTP %d with %d cookies, want 200 and one", rec.Code, len(cookies))
	}
	return func(method, path string) *httptest.ResponseRecorder { return send(method, path, "", cookies[0]) }
}

// TestConsoleDeleteCancelsTheRunningTurn: the console's Delete of a conversation whose turn
// is running cancels the turn: it ends as cancelled (its agent/chat answered so), the page
// hears nothing of a store that failed, nothing is logged at warning level or above, and the
// tab is closed with 1000 "conversation deleted". The audit found the turn failing on the
// session the store had just dropped instead: answered "could not be saved (the session
// store is unavailable)", an error event, an error log and a turn counted as an error.
func TestConsoleDeleteCancelsTheRunningTurn(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	model := newStepModel() // the answer's rest never comes: the turn runs until cancelled
	ts := newQuietServer(t, model, func(c *Config) { c.Logger = zap.New(core) })
	do := consoleOf(t, ts)
	page := openPage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	type answer struct {
		res wire.ChatResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		r, err := page.chat("a long answer, please")
		answered <- answer{r, err}
	}()
	var log turnLog
	log.add(page.eventsUntil(wire.EventTextDelta)...) // the turn runs, its first words stored and seen

	if rec := do(http.MethodDelete, "/console/api/conversations/"+sess.SessionID); rec.Code != http.StatusOK {
		t.Fatalf("console delete: HTTP %d %s, want 200", rec.Code, rec.Body)
	}
	a := <-answered
	if a.err != nil || a.res.StopReason != wire.StopCancelled || a.res.Text == unsavedText {
		t.Errorf("the running turn's agent/chat: got %+v, %v; want it answered with stopReason %q", a.res, a.err, wire.StopCancelled)
	}
	toldDeleted(t, page, &log)
	var ends []event
	for _, e := range log.seen {
		if e.Type == wire.EventError {
			t.Errorf("the page got an error event %+v", e)
		}
		if e.Type == wire.EventTurnEnd {
			ends = append(ends, e)
		}
	}
	if len(ends) > 1 || (len(ends) == 1 && ends[0].StopReason != wire.StopCancelled) {
		t.Errorf("the page saw turn ends %+v, want at most one, cancelled", ends)
	}
	if _, err := ts.store.Load(context.Background(), sess.SessionID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the deleted conversation in the store: %v, want %v", err, store.ErrNotFound)
	}
	for reason, want := range map[string]float64{wire.StopCancelled: 1, wire.StopError: 0} {
		if got := metric(t, ts.Server, `byomcp_turns_total{stop_reason="`+reason+`"}`); got != want {
			t.Errorf("byomcp_turns_total{stop_reason=%q} = %v, want %v", reason, got, want)
		}
	}
	noWarnings(t, logs)
}

// A conversation deleted from the store by another replica's console (which cannot reach
// this replica's memory) is found deleted at the running turn's next write: that is no
// store failure (no "could not be saved", no error log), and the tab is told the
// conversation was deleted, as when the console runs here.
func TestConversationDeletedElsewhereEndsAsDeleted(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	model := newStepModel()
	ts := newQuietServer(t, model, func(c *Config) { c.Logger = zap.New(core) })
	page := openPage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	answered := make(chan wire.ChatResult, 1)
	go func() {
		r, _ := page.chat("a long answer, please")
		answered <- r
	}()
	var log turnLog
	log.add(page.eventsUntil(wire.EventTextDelta)...)
	if err := ts.store.Delete(context.Background(), sess.SessionID); err != nil { // another replica's console
		t.Fatal(err)
	}
	model.hold <- struct{}{} // the turn's next words: a write the store refuses as not found
	if r := <-answered; r.StopReason == wire.StopError || r.Text == unsavedText {
		t.Errorf("the turn's agent/chat: got %+v, want no store failure", r)
	}
	toldDeleted(t, page, &log)
	if got := metric(t, ts.Server, `byomcp_turns_total{stop_reason="error"}`); got != 0 {
		t.Errorf("byomcp_turns_total{stop_reason=\"error\"} = %v, want 0", got)
	}
	noWarnings(t, logs)
}

// toldDeleted waits for the tab of a deleted conversation to be closed with 1000
// "conversation deleted", and checks that it was told of no store failure on the way.
func toldDeleted(t *testing.T, page *fakePage, log *turnLog) {
	t.Helper()
	select {
	case <-page.peer.Done():
	case <-time.After(waitLimit):
		t.Fatal("the tab of the deleted conversation is still connected")
	}
	var ce *websocket.CloseError
	if err := page.peer.Wait(); !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure || ce.Text != "conversation deleted" {
		t.Errorf("the tab's socket ended with %v, want close 1000 %q", err, "conversation deleted")
	}
	log.drain(page)
	if len(log.unlogged) != 0 {
		t.Errorf("the page got events without seq %+v, want none (no store failure to tell)", log.unlogged)
	}
}

// TestConsoleDeleteReachesTheOtherReplicas: replicas share a store; an operator deletes
// conversations through b's console. a lets go of its copies at once, not at their next write:
// a's idle tab of one and the tab whose turn runs on a (its turn cancelled) are told
// "conversation deleted"; so is the tab on b that serves a turn of a's (its proxy).
func TestConsoleDeleteReachesTheOtherReplicas(t *testing.T) {
	model := newStepModel() // a turn runs until it is let go (hold) or cancelled
	_, a, b := twoReplicas(t, model, nil)

	idle := openPage(t, a, testOrigin, echoTool())
	idleSess := idle.session(wire.SessionParams{})
	model.hold <- struct{}{}
	if r, err := idle.chat("hello"); err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("first turn: got %+v %v", r, err)
	}
	var idleLog turnLog
	idleLog.add(idle.eventsUntil(wire.EventTurnEnd)...)

	running := openPage(t, a, testOrigin, echoTool())
	runningSess := running.session(wire.SessionParams{})
	answered := make(chan wire.ChatResult, 1)
	go func() {
		r, _ := running.chat("a long answer, please")
		answered <- r
	}()
	var runningLog turnLog
	runningLog.add(running.eventsUntil(wire.EventTextDelta)...)

	// A third conversation's turn runs on a while its tab moved to b (a proxy there).
	moved := openPage(t, a, testOrigin, echoTool())
	movedSess := moved.session(wire.SessionParams{})
	go func() { _, _ = moved.chat("another long answer") }()
	seen := moved.eventsUntil(wire.EventTextDelta)
	moved.peer.Close(nil)
	onB := openPage(t, b, testOrigin, echoTool())
	last := lastSeqOf(seen)
	if res := onB.session(wire.SessionParams{SessionID: movedSess.SessionID, LastSeq: &last}); !res.Resumed || res.Running == nil {
		t.Fatalf("got %+v, want the session resumed on b with its turn running on a", res)
	}
	var onBLog turnLog
	onBLog.add(seen...)

	do := consoleOf(t, b)
	for _, id := range []string{idleSess.SessionID, runningSess.SessionID, movedSess.SessionID} {
		if rec := do(http.MethodDelete, "/console/api/conversations/"+id); rec.Code != http.StatusOK {
			t.Fatalf("console delete on b: HTTP %d %s, want 200", rec.Code, rec.Body)
		}
	}
	toldDeleted(t, idle, &idleLog)
	select {
	case r := <-answered:
		if r.StopReason != wire.StopCancelled {
			t.Errorf("the running turn's agent/chat: got %+v, want it cancelled", r)
		}
	case <-time.After(waitLimit):
		t.Fatal("the turn running on a was not cancelled")
	}
	toldDeleted(t, running, &runningLog)
	toldDeleted(t, onB, &onBLog)
	for _, ts := range []*testServer{a, b} {
		if n := heldCount(ts.Server); n != 0 {
			t.Errorf("%s still holds %d sessions", ts.owner, n)
		}
	}
}

// TestDeletedSessionResumedInTheMeantime: a tab's resume loaded a conversation while its
// deletion was announced (the word reached this replica while the load was on its way, so
// the copy escaped the forget), and the tab chats once the store has dropped it. The session
// is found gone at that chat: it is known as deleted (Info, the tab told "conversation
// deleted"), not as one the store lost (Error, the tab sent back to start again).
func TestDeletedSessionResumedInTheMeantime(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	model := newStepModel()
	ts := newQuietServer(t, model, func(c *Config) { c.Logger = zap.New(core) })
	first := openPage(t, ts, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	model.hold <- struct{}{}
	if r, err := first.chat("hello"); err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("first turn: got %+v %v", r, err)
	}
	first.peer.Close(nil)
	<-first.peer.Done()

	again := openPage(t, ts, testOrigin, echoTool())
	if res := again.session(wire.SessionParams{SessionID: sess.SessionID}); !res.Resumed {
		t.Fatalf("got %+v, want the conversation resumed", res)
	}
	// The word of the Delete, which this copy escaped; then the console's delete in the store.
	ts.deleted.Add(sess.SessionID, time.Now())
	if err := ts.store.Delete(context.Background(), sess.SessionID); err != nil {
		t.Fatal(err)
	}
	model.hold <- struct{}{} // in case the turn gets as far as the model
	var log turnLog
	if r, err := again.chat("are you there?"); err == nil && r.StopReason != wire.StopCancelled {
		t.Errorf("a chat on the deleted conversation: got %+v, want it refused or cancelled", r)
	}
	toldDeleted(t, again, &log)
	for _, e := range logs.All() {
		if e.Level >= zapcore.WarnLevel {
			t.Errorf("logged at %s: %s", e.Level, e.Message)
		}
	}
}

// TestDeletedWhileItsAnswerWasBeingStored: the conversation is deleted from the store (by
// another replica's console, whose word this one has not heard) while its turn's first
// write is in flight, and the model answers before that write comes back refused. Nothing of
// the turn is stored, so it ends as cancelled, not done (it once answered "end"), and the tab
// is told the conversation was deleted.
func TestDeletedWhileItsAnswerWasBeingStored(t *testing.T) {
	hs := &heldStore{Store: newTestStore(), held: make(chan struct{}, 1), release: make(chan struct{})}
	model := &gatedModel{Model: echoOnceOr(), gate: make(chan struct{})}
	ts := newQuietServer(t, model, func(c *Config) { c.Store = hs })
	page := openPage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})

	hs.armed.Store(true)
	type answer struct {
		r   wire.ChatResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := page.chat("stream 3")
		done <- answer{r, err}
	}()
	<-hs.held // the turn_start's write is in flight, and stays so
	close(model.gate)
	ls := liveOf(ts.Server, sess.SessionID)
	waitFor(t, "the whole answer and the turn_end to be queued", func() bool {
		return strings.Contains(string(lastPendingEvent(ls)), `"type":"turn_end"`)
	})
	if err := hs.Store.Delete(context.Background(), sess.SessionID); err != nil {
		t.Fatal(err)
	}
	hs.armed.Store(false)
	close(hs.release)
	if a := <-done; a.err == nil && a.r.StopReason != wire.StopCancelled {
		t.Errorf("the turn of the deleted conversation: got %+v, want it cancelled", a.r)
	}
	var log turnLog
	toldDeleted(t, page, &log)
}

// TestConversationBeingDeletedCannotBeResumed: between the console's Forget (its turn
// cancelled, its copy ending) and the store's delete, a tab that asks for the conversation is
// answered that there is none, instead of loading a second copy from the store that would
// write beside the one ending (a seq conflict, found by the page fuzzer on SQLite).
func TestConversationBeingDeletedCannotBeResumed(t *testing.T) {
	model := newStepModel()
	ts := newQuietServer(t, model, nil)
	page := openPage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	model.hold <- struct{}{}
	if r, err := page.chat("hello"); err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("first turn: got %+v %v", r, err)
	}
	ts.Forget(sess.SessionID) // the console's first step; the store still has it
	<-page.peer.Done()

	again := openPage(t, ts, testOrigin, echoTool())
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res wire.SessionResult
	err := again.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID}, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
		t.Fatalf("resuming a conversation being deleted: got %+v %v, want -32002", res, err)
	}
}
