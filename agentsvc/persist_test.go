package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// These tests are about conversations that survive: page loads, dropped and silently dead
// sockets, navigation in the middle of a turn, duplicated tabs, another replica, idle expiry.
// The process-level ones (kill -9, two replicas on Redis) are in cmd/byomcp/persist_test.go.

// wordModel streams the words "w0 " … "wN-1 ", each only once the test releases it, so a
// test decides what the page has seen when it drops. With toolAt > 0 the first model call
// stops after toolAt words with a call of echo; the second call streams the rest.
type wordModel struct {
	words  int
	toolAt int
	gate   chan struct{} // one value releases one word; buffered, so releasing never blocks
	mu     sync.Mutex
	reqs   []llm.Request
	next   int // next word to stream
}

func newWordModel(words, toolAt int) *wordModel {
	return &wordModel{words: words, toolAt: toolAt, gate: make(chan struct{}, words)}
}

func (m *wordModel) Name() string { return "words" }

func (m *wordModel) release() { m.gate <- struct{}{} }

func wordAt(i int) string { return fmt.Sprintf("w%d ", i) }

func (m *wordModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	first := len(m.reqs) == 1
	m.mu.Unlock()
	end := m.words
	if first && m.toolAt > 0 {
		end = m.toolAt
	}
	var text strings.Builder
	for ; m.next < end; m.next++ {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		onDelta(wordAt(m.next))
		text.WriteString(wordAt(m.next))
	}
	if first && m.toolAt > 0 {
		return &llm.Response{Text: text.String(), ToolCalls: []chat.ToolCall{call("mid", "echo", `{"text":"halfway"}`)}}, nil
	}
	return &llm.Response{Text: text.String()}, nil
}

// eventsUntilWord collects events until one carries word w (a replayed run of deltas is
// merged into one event, so w may come at the end of a longer delta).
func (p *fakePage) eventsUntilWord(w string) []event {
	p.t.Helper()
	var out []event
	for range 10000 {
		e := p.nextEvent()
		out = append(out, e)
		if e.Type == wire.EventTextDelta && strings.HasSuffix(e.Delta, w) {
			return out
		}
	}
	p.t.Fatalf("no delta with %q in 10000 events", w)
	return nil
}

// openPage connects a fake page and waits until the agent has listed its tools, so the
// handshake is over before the test may close the socket.
func openPage(t *testing.T, ts *testServer, origin string, tools ...pageTestTool) *fakePage {
	t.Helper()
	p := newFakePage(t, ts, origin, tools...)
	p.waitListed(1)
	t.Cleanup(func() {
		p.peer.Close(nil)
		_ = p.peer.Wait()
	})
	return p
}

// newQuietServer is newTestServer that, when the test ends, waits for its sockets to be
// served to the end before shutting down, so no server goroutine logs after the test.
func newQuietServer(t *testing.T, model llm.Model, mod func(*Config)) *testServer {
	t.Helper()
	ts := newTestServer(t, model, mod)
	t.Cleanup(func() {
		deadline := time.Now().Add(waitLimit)
		for ts.ConnCount() > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	})
	return ts
}

// lastSeqOf is the last seq among evs (0 when none).
func lastSeqOf(evs []event) int64 {
	var m int64
	for _, e := range evs {
		m = max(m, e.Seq)
	}
	return m
}

// checkNothingLostOrDoubled compares what a page saw over all its sockets with the
// session's log: every event once, in order, up to the last; the only events it may not
// have seen one by one are text deltas that a resume merged into the next delta it got.
func checkNothingLostOrDoubled(t *testing.T, seen []event, log []store.Event) {
	t.Helper()
	stored := make(map[int64]event, len(log))
	var wantText strings.Builder
	var last int64
	for _, se := range log {
		var e event
		if err := json.Unmarshal(se.Data, &e); err != nil {
			t.Fatalf("stored event %d: %v", se.Seq, err)
		}
		if e.Seq != se.Seq {
			t.Errorf("stored event %d says seq %d", se.Seq, e.Seq)
		}
		stored[se.Seq] = e
		wantText.WriteString(e.Delta)
		if se.Seq != last+1 {
			t.Errorf("the log jumps from seq %d to %d", last, se.Seq)
		}
		last = se.Seq
	}
	var prev int64
	var gotText strings.Builder
	for _, e := range seen {
		if e.Seq <= prev {
			t.Errorf("got seq %d (%s) after seq %d: doubled or out of order", e.Seq, e.Type, prev)
			continue
		}
		s, ok := stored[e.Seq]
		if !ok || s.Type != e.Type {
			t.Errorf("got seq %d %s, the log has %q there", e.Seq, e.Type, s.Type)
		}
		for q := prev + 1; q < e.Seq; q++ {
			if stored[q].Type != wire.EventTextDelta || e.Type != wire.EventTextDelta {
				t.Errorf("seq %d (%s) never reached the page (next seen: %d %s)", q, stored[q].Type, e.Seq, e.Type)
			}
		}
		gotText.WriteString(e.Delta)
		prev = e.Seq
	}
	if prev != last {
		t.Errorf("the page saw events up to seq %d, the log goes to %d", prev, last)
	}
	if gotText.String() != wantText.String() {
		t.Errorf("the page's text %q differs from the log's %q", gotText.String(), wantText.String())
	}
}

// storedLog reads a session's whole event log.
func storedEvents(t *testing.T, st store.Store, id string) []store.Event {
	t.Helper()
	evs, err := st.EventsAfter(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// dropPage ends a page's socket: without a close frame (a dead network) or with 1001 (a
// page that unloads).
func dropSocket(p *fakePage, clean bool) {
	if clean {
		p.peer.CloseWithStatus(1001, "going away")
	} else {
		p.peer.Close(nil)
	}
	<-p.peer.Done()
}

func TestReconnectStormLosesNothing(t *testing.T) {
	const rounds = 20
	model := newWordModel(rounds, rounds/2)
	ts := newQuietServer(t, model, nil)
	page := openPage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	first := page
	go func() { _, _ = first.chat("talk for a while") }() // fails when its socket drops; the turn goes on
	model.release()
	var seen []event
	for i := range rounds {
		if i > 0 {
			page = openPage(t, ts, testOrigin, echoTool())
			last := lastSeqOf(seen)
			res := page.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
			if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
				t.Fatalf("reconnect %d: got %+v, want the session resumed", i, res)
			}
		}
		seen = append(seen, page.eventsUntilWord(wordAt(i))...)
		if i == rounds-1 {
			break
		}
		dropSocket(page, i%2 == 1)
		model.release() // the next word races the reconnect
	}
	seen = append(seen, page.eventsUntil(wire.EventTurnEnd)...)
	if end := seen[len(seen)-1]; end.StopReason != wire.StopEnd {
		t.Errorf("got turn_end %+v, want stopReason end", end)
	}
	checkNothingLostOrDoubled(t, seen, storedEvents(t, ts.store, sess.SessionID))
	s, err := ts.store.Load(context.Background(), sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := roleList(s.Messages); got != "user,assistant,tool,assistant" {
		t.Errorf("got stored history %s, want user,assistant,tool,assistant", got)
	}
}

func roleList(msgs []chat.Message) string {
	var r []string
	for _, m := range msgs {
		r = append(r, m.Role)
	}
	return strings.Join(r, ",")
}

// turnEnded reports whether the session's last turn is over in the store.
func turnOver(st store.Store, id string, msgs int) func() bool {
	return func() bool {
		s, err := st.Load(context.Background(), id)
		return err == nil && s.ActiveTurn == "" && len(s.Messages) >= msgs
	}
}

// turnOverHere tells whether session id's turn has ended in the server's memory too: the
// store may already hold its end while the flusher has not yet applied that write to the
// session (then a resume's result ends before the answer, which follows as events).
func turnOverHere(ts *testServer, id string) func() bool {
	return func() bool {
		ts.hub.mu.Lock()
		ls := ts.hub.live[id]
		if p, ok := ts.hub.parked[id]; ok && ls == nil {
			ls = p.ls
		}
		ts.hub.mu.Unlock()
		if ls == nil {
			return true
		}
		ls.mu.Lock()
		defer ls.mu.Unlock()
		return ls.turn == nil && !ls.st.Writing
	}
}

func TestSocketDiesMidTurnThenResume(t *testing.T) {
	for _, clean := range []bool{false, true} {
		name := map[bool]string{false: "no close frame", true: "close 1001"}[clean]
		t.Run(name, func(t *testing.T) {
			model := newWordModel(5, 0)
			ts := newQuietServer(t, model, nil)
			page := openPage(t, ts, testOrigin, echoTool())
			sess := page.session(wire.SessionParams{})
			go func() { _, _ = page.chat("tell me") }()
			model.release()
			seen := page.eventsUntilWord(wordAt(0))
			dropSocket(page, clean)
			for range 4 {
				model.release()
			}
			waitFor(t, "the turn to finish without its page", turnOver(ts.store, sess.SessionID, 2))
			waitFor(t, "the session to have applied the turn's last write", turnOverHere(ts, sess.SessionID))

			back := openPage(t, ts, testOrigin, echoTool())
			last := lastSeqOf(seen)
			res := back.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
			if !res.Resumed || res.Forked {
				t.Fatalf("got %+v, want the session resumed", res)
			}
			if got := roleList(res.Messages); got != "user,assistant" || res.Messages[1].Content != "w0 w1 w2 w3 w4 " {
				t.Errorf("got messages %+v, want the whole answer", res.Messages)
			}
			seen = append(seen, back.eventsUntil(wire.EventTurnEnd)...)
			checkNothingLostOrDoubled(t, seen, storedEvents(t, ts.store, sess.SessionID))
		})
	}
}

// navigatingResult is a tool result that says the page is about to navigate.
func navigatingResult(text string) map[string]any {
	return map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}},
		"_meta":   map[string]any{wire.MetaNavigating: true},
	}
}

func TestNavigationMidTurnGoesOnWithTheNewPagesTools(t *testing.T) {
	// before: the old socket is still open when the new page resumes (the browser has not
	// closed it yet, or the server has not seen it close); after: it is gone first.
	for _, oldGoneFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("old socket gone first=%v", oldGoneFirst), func(t *testing.T) {
			model, fake := openAIModel(t, llmtest.Script(
				llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "nav", Name: "open_configurator", Args: `{}`}}},
				llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "cfg", Name: "configure_car", Args: `{"color":"red"}`}}},
				llmtest.Step{Text: "Your car is red."},
			))
			ts := newQuietServer(t, model, nil)
			navigated := make(chan struct{})
			open := pageTestTool{
				tool: wire.PageTool{Name: "open_configurator", Description: "Go to the configurator.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				fn: func(context.Context, map[string]any) (any, error) {
					close(navigated)
					return navigatingResult("opening the configurator"), nil
				},
			}
			filter := pageTestTool{
				tool: wire.PageTool{Name: "filter_cars", Description: "Filter the list.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				fn:   func(context.Context, map[string]any) (any, error) { return "filtered", nil },
			}
			configure := pageTestTool{
				tool: wire.PageTool{Name: "configure_car", Description: "Set the color.", InputSchema: json.RawMessage(`{"type":"object","properties":{"color":{"enum":["red","blue"]}},"required":["color"]}`)},
				fn: func(_ context.Context, args map[string]any) (any, error) {
					return "color set to " + args["color"].(string), nil
				},
			}
			list := openPage(t, ts, testOrigin, open, filter)
			sess := list.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}})
			go func() { _, _ = list.chat("make me a red car") }()
			<-navigated
			seen := list.eventsUntil(wire.EventToolResult)
			if oldGoneFirst {
				dropSocket(list, true)
				waitFor(t, "the server to see the old page go", func() bool { return ts.ConnCount() == 0 })
			}

			cfg := openPage(t, ts, testOrigin, configure)
			last := lastSeqOf(seen)
			res := cfg.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last, Page: &wire.Page{URL: "http://localhost:3000/configure", Title: "Configure"}})
			if !res.Resumed || res.Forked {
				t.Fatalf("got %+v, want the session resumed by the new page", res)
			}
			seen = append(seen, cfg.eventsUntil(wire.EventTurnEnd)...)
			if !oldGoneFirst {
				dropSocket(list, true)
			}
			end := seen[len(seen)-1]
			if end.StopReason != wire.StopEnd || end.Text != "Your car is red." {
				t.Errorf("got turn_end %+v, want the turn finished on the new page", end)
			}
			if calls := cfg.callsMade(); len(calls) != 1 || calls[0].Name != "configure_car" {
				t.Errorf("got calls on the new page %+v, want configure_car", calls)
			}
			if calls := list.callsMade(); len(calls) != 1 || calls[0].Name != "open_configurator" {
				t.Errorf("got calls on the old page %+v, want only open_configurator", calls)
			}
			reqs := fake.Requests()
			if len(reqs) != 3 {
				t.Fatalf("got %d model requests, want 3", len(reqs))
			}
			want := []string{"open_configurator,filter_cars", "configure_car", "configure_car"}
			for i, r := range reqs {
				var names []string
				for _, tool := range r.Tools {
					names = append(names, tool.Name)
				}
				if got := strings.Join(names, ","); got != want[i] {
					t.Errorf("model call %d offered %q, want %q", i+1, got, want[i])
				}
			}
			checkNothingLostOrDoubled(t, seen, storedEvents(t, ts.store, sess.SessionID))
		})
	}
}

func TestNavigationMidTurnWaitsForTheNewPagesLateTools(t *testing.T) {
	// The demo's car page registers its tools once its data has loaded: its socket lists none
	// at first, then says tools/list_changed. The model call after the navigation is offered
	// them; a page that never registers any is waited for no longer than LateTools.
	for _, registers := range []bool{true, false} {
		t.Run(fmt.Sprintf("registers=%v", registers), func(t *testing.T) {
			steps := []llmtest.Step{{ToolCalls: []llmtest.FakeCall{{ID: "nav", Name: "open_car", Args: `{}`}}}}
			if registers {
				steps = append(steps, llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "book", Name: "book_test_drive", Args: `{}`}}})
			}
			steps = append(steps, llmtest.Step{Text: "Done."})
			model, fake := openAIModel(t, llmtest.Script(steps...))
			ts := newQuietServer(t, model, func(c *Config) { c.LateTools = 5 * time.Second })
			navigated := make(chan struct{})
			open := pageTestTool{
				tool: wire.PageTool{Name: "open_car", Description: "Open the car's page.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				fn: func(context.Context, map[string]any) (any, error) {
					close(navigated)
					return navigatingResult("opening the car"), nil
				},
			}
			list := openPage(t, ts, testOrigin, open)
			sess := list.session(wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/", Title: "Cars"}})
			go func() { _, _ = list.chat("book a test drive of the rav4") }()
			<-navigated
			seen := list.eventsUntil(wire.EventToolResult)
			dropSocket(list, true)

			car := openPage(t, ts, testOrigin) // no tools yet
			last := lastSeqOf(seen)
			if res := car.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last, Page: &wire.Page{URL: "http://localhost:3000/car/rav4", Title: "RAV4"}}); !res.Resumed {
				t.Fatalf("got %+v, want the session resumed by the car page", res)
			}
			if registers {
				time.Sleep(200 * time.Millisecond) // its data loads
				car.registerLate(pageTestTool{
					tool: wire.PageTool{Name: "book_test_drive", Description: "Book a test drive.", InputSchema: json.RawMessage(`{"type":"object"}`)},
					fn:   func(context.Context, map[string]any) (any, error) { return "booked", nil },
				})
			}
			seen = append(seen, car.eventsUntil(wire.EventTurnEnd)...)
			if end := seen[len(seen)-1]; end.StopReason != wire.StopEnd || end.Text != "Done." {
				t.Errorf("got turn_end %+v, want the turn finished on the car page", end)
			}
			reqs := fake.Requests()
			if len(reqs) != len(steps) {
				t.Fatalf("got %d model requests, want %d", len(reqs), len(steps))
			}
			var offered []string
			for _, tool := range reqs[1].Tools {
				offered = append(offered, tool.Name)
			}
			if registers {
				if got := strings.Join(offered, ","); got != "book_test_drive" {
					t.Errorf("the model call after the navigation was offered %q, want the car page's late book_test_drive", got)
				}
				if calls := car.callsMade(); len(calls) != 1 || calls[0].Name != "book_test_drive" {
					t.Errorf("got calls on the car page %+v, want book_test_drive", calls)
				}
			} else {
				if len(offered) != 0 {
					t.Errorf("got tools %q, want none", offered)
				}
			}
		})
	}
}

// registerLate adds a tool to the page and says so (tools/list_changed), as a page does that
// registers its tools once its data has loaded.
func (p *fakePage) registerLate(tool pageTestTool) {
	p.t.Helper()
	p.mu.Lock()
	p.tools = append(p.tools, tool.tool)
	p.funcs[tool.tool.Name] = tool.fn
	p.mu.Unlock()
	if err := p.peer.Notify(context.Background(), wire.MethodToolsListChanged, nil); err != nil {
		p.t.Fatal(err)
	}
}

// fakeTimePage is a page on an in-memory pipe, for tests on fake time (testing/synctest).
type fakeTimePage struct {
	peer  *wsrpc.Peer
	mu    sync.Mutex
	calls []string
	evs   []event
}

// connectFakeTimePage serves a page over an in-memory pipe; wrap may stand between the server and
// the pipe (nil: none).
func connectFakeTimePage(t *testing.T, srv *Server, wrap func(wsrpc.MessageConn) wsrpc.MessageConn, tools ...pageTestTool) *fakeTimePage {
	t.Helper()
	srvEnd, pageEnd := wsrpc.Pipe()
	if wrap != nil {
		srvEnd = wrap(srvEnd)
	}
	srv.serve(context.Background(), srvEnd, testOrigin)
	p := &fakeTimePage{}
	peer := wsrpc.NewPeer(pageEnd, wsrpc.Options{PingInterval: -1})
	peer.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "pipe-page", Version: "1"}}, nil
	})
	peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	peer.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		res := wire.ToolsListResult{Tools: []wire.PageTool{}}
		for _, tt := range tools {
			res.Tools = append(res.Tools, tt.tool)
		}
		return res, nil
	})
	peer.Handle(wire.MethodToolsCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var cp wire.ToolsCallParams
		_ = json.Unmarshal(req.Params, &cp)
		p.mu.Lock()
		p.calls = append(p.calls, cp.Name)
		p.mu.Unlock()
		for _, tt := range tools {
			if tt.tool.Name == cp.Name {
				var args map[string]any
				_ = json.Unmarshal(cp.Arguments, &args)
				v, err := tt.fn(ctx, args)
				if err != nil {
					return nil, err
				}
				if s, ok := v.(string); ok {
					return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}, nil
				}
				return v, nil
			}
		}
		return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, "no such tool")
	})
	peer.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) {
		var e event
		_ = json.Unmarshal(req.Params, &e)
		p.mu.Lock()
		p.evs = append(p.evs, e)
		p.mu.Unlock()
	})
	p.peer = peer
	peer.Start()
	return p
}

func (p *fakeTimePage) session(t *testing.T, params wire.SessionParams) wire.SessionResult {
	t.Helper()
	var res wire.SessionResult
	if err := p.peer.Call(context.Background(), wire.MethodAgentSession, params, &res); err != nil {
		t.Fatalf("agent/session: %v", err)
	}
	return res
}

func (p *fakeTimePage) events() []event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]event(nil), p.evs...)
}

// fakeTimeServer makes a Server for a synctest bubble; it is shut down before the bubble ends.
func fakeTimeServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = store.NewMemory()
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Shutdown(context.Background())
		synctest.Wait()
	})
	return srv
}

func TestNavigationPageNeverComesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 7 * time.Second
		model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
			switch n {
			case 0:
				return &llm.Response{ToolCalls: []chat.ToolCall{call("nav", "open_configurator", `{}`)}}, nil
			case 1: // the model goes on with a tool it saw on the old page
				return &llm.Response{ToolCalls: []chat.ToolCall{call("flt", "filter_cars", `{}`)}}, nil
			default:
				return &llm.Response{Text: "The page did not come back."}, nil
			}
		}}
		st := store.NewMemory()
		srv := fakeTimeServer(t, Config{Store: st, Model: model, ReconnectWait: wait})
		var page *fakeTimePage
		open := pageTestTool{tool: wire.PageTool{Name: "open_configurator", InputSchema: json.RawMessage(`{"type":"object"}`)},
			fn: func(context.Context, map[string]any) (any, error) { return navigatingResult("navigating"), nil }}
		filter := pageTestTool{tool: wire.PageTool{Name: "filter_cars", InputSchema: json.RawMessage(`{"type":"object"}`)},
			fn: func(context.Context, map[string]any) (any, error) { return "filtered", nil }}
		page = connectFakeTimePage(t, srv, nil, open, filter)
		sess := page.session(t, wire.SessionParams{})
		chatDone := make(chan error, 1)
		go func() {
			chatDone <- page.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "configure"}, nil)
		}()
		synctest.Wait() // the navigating call has run; the turn now waits for the page
		if n := len(model.requests()); n != 1 {
			t.Fatalf("got %d model calls before the page left, want 1", n)
		}
		page.peer.Close(nil) // the browser left the page
		<-chatDone
		left := time.Now()

		time.Sleep(wait - time.Millisecond)
		synctest.Wait()
		if n := len(model.requests()); n != 1 {
			t.Fatalf("got %d model calls before ReconnectWait ran out, want the turn still waiting", n)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		reqs := model.requests()
		if len(reqs) != 2 || len(reqs[1].Tools) != 0 {
			t.Fatalf("got %d model calls (last with %d tools), want a 2nd one without page tools once ReconnectWait ran out", len(reqs), len(reqs[len(reqs)-1].Tools))
		}
		time.Sleep(2 * wait)
		synctest.Wait()
		s, err := st.Load(context.Background(), sess.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if s.ActiveTurn != "" {
			t.Fatalf("the turn is still active %v after the page left", time.Since(left))
		}
		answers := map[string]string{}
		for _, m := range s.Messages {
			if m.Role == chat.RoleTool {
				answers[m.ToolCallID] = m.Content
			}
		}
		if !strings.Contains(answers["flt"], "did not come back in time") || !strings.Contains(answers["nav"], "navigating") {
			t.Errorf("got tool answers %v, want the navigation result and a clear not-connected error", answers)
		}
		if last := s.Messages[len(s.Messages)-1]; last.Role != chat.RoleAssistant || last.Content != "The page did not come back." {
			t.Errorf("got last message %+v, want the model's closing answer", last)
		}
		evs := storedEvents(t, st, sess.SessionID)
		var end event
		_ = json.Unmarshal(evs[len(evs)-1].Data, &end)
		if end.Type != wire.EventTurnEnd || end.StopReason != wire.StopEnd {
			t.Errorf("got last event %+v, want turn_end with stopReason end", end)
		}
	})
}

// silentConn stands for a network that went silent: once frozen, nothing written reaches
// the other end and nothing more is read (not even the other end's close), until Close.
type silentConn struct {
	wsrpc.MessageConn
	frozen atomic.Bool
	closed chan struct{}
	once   sync.Once
}

func newSilentConn(c wsrpc.MessageConn) *silentConn {
	return &silentConn{MessageConn: c, closed: make(chan struct{})}
}

func (s *silentConn) ReadMessage() ([]byte, error) {
	for {
		data, err := s.MessageConn.ReadMessage()
		if !s.frozen.Load() {
			return data, err
		}
		if err != nil {
			<-s.closed
			return nil, wsrpc.ErrClosed
		}
	}
}

func (s *silentConn) WriteMessage(data []byte) error {
	if s.frozen.Load() {
		return nil
	}
	return s.MessageConn.WriteMessage(data)
}

func (s *silentConn) Close() error {
	s.once.Do(func() { close(s.closed) })
	return s.MessageConn.Close()
}

func TestSilentlyDeadSocketIsReplacedNotForked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := newWordModel(3, 0)
		st := store.NewMemory()
		srv := fakeTimeServer(t, Config{Store: st, Model: model})
		var silent *silentConn
		asleep := connectFakeTimePage(t, srv, func(c wsrpc.MessageConn) wsrpc.MessageConn { silent = newSilentConn(c); return silent }, echoTool())
		sess := asleep.session(t, wire.SessionParams{})
		go func() {
			_ = asleep.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "hi"}, nil)
		}()
		model.release()
		synctest.Wait()
		seen := asleep.events()
		// The phone sleeps: its socket dies without the server hearing of it.
		silent.frozen.Store(true)
		asleep.peer.Close(nil)
		model.release()
		model.release()
		synctest.Wait()
		if s, _ := st.Load(context.Background(), sess.SessionID); s == nil || s.ActiveTurn != "" {
			t.Fatalf("got %+v, want the turn finished while the phone slept", s)
		}
		select {
		case <-silent.closed:
			t.Fatal("the server closed the silent socket on its own; the test needs it open")
		default:
		}

		awake := connectFakeTimePage(t, srv, nil, echoTool())
		last := lastSeqOf(seen)
		start := time.Now()
		res := awake.session(t, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
		if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
			t.Fatalf("got %+v, want the session resumed: the old socket is dead", res)
		}
		if took := time.Since(start); took > probeWait {
			t.Errorf("resume took %v of fake time, want at most the probe bound %v", took, probeWait)
		}
		synctest.Wait()
		select {
		case <-silent.closed:
		default:
			t.Error("the dead socket was left open")
		}
		seen = append(seen, awake.events()...)
		checkNothingLostOrDoubled(t, seen, storedEvents(t, st, sess.SessionID))
		awake.peer.Close(nil)
	})
}

// claimHook is a Store that reports failed claims, so a test knows a replica is waiting.
type claimHook struct {
	store.Store
	refused chan struct{}
}

func (h *claimHook) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	ok, cur, err := h.Store.Claim(ctx, id, owner, ttl)
	if err == nil && !ok {
		select {
		case h.refused <- struct{}{}:
		default:
		}
	}
	return ok, cur, err
}

func TestResumeOnAnotherReplicaAfterItsTurnEnds(t *testing.T) {
	shared := store.NewMemory()
	model := newWordModel(4, 0)
	a := newQuietServer(t, model, func(c *Config) { c.Store = shared; c.OwnerID = "replica-a" })
	hook := &claimHook{Store: shared, refused: make(chan struct{}, 1)}
	b := newQuietServer(t, textModel("answered on b"), func(c *Config) { c.Store = hook; c.OwnerID = "replica-b" })

	page := openPage(t, a, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})
	go func() { _, _ = page.chat("first") }()
	model.release()
	seen := page.eventsUntilWord(wordAt(0))
	dropSocket(page, false)

	// The page comes back through the load balancer on b while a still runs the turn: b
	// waits for a's claim, a finishes and lets go, b takes the session with all of the turn.
	moved := openPage(t, b, testOrigin, echoTool())
	last := lastSeqOf(seen)
	resumed := make(chan wire.SessionResult, 1)
	go func() {
		var res wire.SessionResult
		err := moved.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}, &res)
		if err != nil {
			t.Errorf("agent/session on b: %v", err)
		}
		resumed <- res
	}()
	select {
	case <-hook.refused:
	case <-time.After(waitLimit):
		t.Fatal("b never tried to claim the session")
	}
	for range 3 {
		model.release()
	}
	res := <-resumed
	if !res.Resumed || res.Forked {
		t.Fatalf("got %+v, want the session resumed on b", res)
	}
	if got := roleList(res.Messages); got != "user,assistant" || res.Messages[1].Content != "w0 w1 w2 w3 " {
		t.Errorf("got messages %+v, want the turn a finished", res.Messages)
	}
	seen = append(seen, moved.eventsUntil(wire.EventTurnEnd)...)
	r, err := moved.chat("second")
	if err != nil || r.Text != "answered on b" {
		t.Fatalf("got %+v %v, want the next turn run by b", r, err)
	}
	seen = append(seen, moved.eventsUntil(wire.EventTurnEnd)...)
	checkNothingLostOrDoubled(t, seen, storedEvents(t, shared, sess.SessionID))
	reqs := b.cfg.Model.(*scriptModel).requests()
	if len(reqs) != 1 {
		t.Fatalf("b made %d model calls, want 1", len(reqs))
	}
	hist := reqs[0].Messages[1:] // after the system prompt
	if got := roleList(hist); got != "user,assistant,user" || hist[1].Content != "w0 w1 w2 w3 " {
		t.Errorf("b's model saw %+v, want the whole history", hist)
	}
}

// echoArgs is a model that calls echo with the user's words, then answers.
func echoUserText() *scriptModel {
	return &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == chat.RoleUser {
			args, _ := json.Marshal(map[string]string{"text": last.Content})
			return &llm.Response{ToolCalls: []chat.ToolCall{call(fmt.Sprintf("c%d", n), "echo", string(args))}}, nil
		}
		return &llm.Response{Text: "done"}, nil
	}}
}

// slowEcho is echo that blocks on "slow" until release is closed.
func slowEcho(started chan<- struct{}, release <-chan struct{}) pageTestTool {
	tt := echoTool()
	tt.fn = func(ctx context.Context, args map[string]any) (any, error) {
		if args["text"] == "slow" {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return "echo: " + args["text"].(string), nil
	}
	return tt
}

func TestDuplicateTabNeverRunsTheOthersTools(t *testing.T) {
	ts := newQuietServer(t, echoUserText(), nil)
	started, release := make(chan struct{}, 1), make(chan struct{})
	a := openPage(t, ts, testOrigin, slowEcho(started, release))
	sessA := a.session(wire.SessionParams{})
	if _, err := a.chat("first from a"); err != nil {
		t.Fatal(err)
	}
	aDone := make(chan error, 1)
	go func() { _, err := a.chat("slow"); aDone <- err }()
	<-started // a's turn is running, its tool call waiting in tab a

	// The duplicated tab arrives with the same id (sessionStorage is copied) and lastSeq.
	b := openPage(t, ts, testOrigin, echoTool())
	last := int64(5)
	res := b.session(wire.SessionParams{SessionID: sessA.SessionID, LastSeq: &last})
	if !res.Forked || res.Resumed || res.SessionID == sessA.SessionID || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(res.SessionID) {
		t.Fatalf("got %+v, want a new forked session", res)
	}
	if got := roleList(res.Messages); got != "user,assistant,tool,assistant" || res.Messages[0].Content != "first from a" {
		t.Errorf("got forked history %+v, want a's completed turn only", res.Messages)
	}
	if res.Seq != 0 {
		t.Errorf("got seq %d, want the fork's own log (0)", res.Seq)
	}
	if _, err := b.chat("from b"); err != nil {
		t.Fatal(err)
	}
	// Asked again while a is live, b's old id still forks: never two sockets on one session.
	c := openPage(t, ts, testOrigin, echoTool())
	if again := c.session(wire.SessionParams{SessionID: sessA.SessionID}); !again.Forked || again.SessionID == sessA.SessionID {
		t.Errorf("got %+v, want another fork", again)
	}
	close(release)
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	if _, err := a.chat("more from a"); err != nil {
		t.Fatal(err)
	}
	texts := func(p *fakePage) string {
		var out []string
		for _, c := range p.callsMade() {
			var args map[string]string
			_ = json.Unmarshal(c.Arguments, &args)
			out = append(out, args["text"])
		}
		return strings.Join(out, "|")
	}
	if got := texts(a); got != "first from a|slow|more from a" {
		t.Errorf("tab a ran %q, want only a's calls", got)
	}
	if got := texts(b); got != "from b" {
		t.Errorf("tab b ran %q, want only b's call", got)
	}
	if got := texts(c); got != "" {
		t.Errorf("tab c ran %q, want nothing", got)
	}
	s, _ := ts.store.Load(context.Background(), sessA.SessionID)
	if got := roleList(s.Messages); got != strings.Repeat("user,assistant,tool,assistant,", 2)+"user,assistant,tool,assistant" {
		t.Errorf("a's history is %s, want its three turns only", got)
	}
	// Once tab a is gone, its id resumes (a reload of tab a), not forks.
	dropSocket(a, true)
	waitFor(t, "tab a to be gone", func() bool { return ts.ConnCount() == 2 })
	d := openPage(t, ts, testOrigin, echoTool())
	if back := d.session(wire.SessionParams{SessionID: sessA.SessionID}); !back.Resumed || back.Forked {
		t.Errorf("got %+v, want a's session resumed once tab a is gone", back)
	}
}

var hexSessionID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestSessionIDsOriginsAndLogs(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Logger = zap.New(core) })
	ids := map[string]bool{}
	a := openPage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	ids[sess.SessionID] = true
	if _, err := a.chat("hello"); err != nil {
		t.Fatal(err)
	}
	a.eventsUntil(wire.EventTurnEnd)

	// Another origin can neither resume nor fork it, live or stored.
	other := "http://127.0.0.1:4000"
	for _, state := range []string{"live", "stored"} {
		if state == "stored" {
			dropSocket(a, true)
			waitFor(t, "the session to leave memory", func() bool {
				ts.hub.mu.Lock()
				defer ts.hub.mu.Unlock()
				return ts.hub.live[sess.SessionID] == nil
			})
		}
		thief := openPage(t, ts, other, echoTool())
		last := int64(0)
		var res wire.SessionResult
		err := thief.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}, &res)
		if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
			t.Errorf("%s session from another origin: got %v %+v, want %d", state, err, res, wire.CodeSessionNotFound)
		}
		select {
		case raw := <-thief.events:
			t.Errorf("%s session from another origin: got event %s, want none", state, raw)
		default:
		}
		thief.peer.Close(nil)
	}
	// The same origin resumes it, and a duplicated tab forks it.
	b := openPage(t, ts, testOrigin, echoTool())
	last := int64(1)
	if res := b.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed {
		t.Fatalf("got %+v, want it resumed", res)
	}
	b.eventsUntil(wire.EventTurnEnd)
	c := openPage(t, ts, testOrigin, echoTool())
	fork := c.session(wire.SessionParams{SessionID: sess.SessionID})
	ids[fork.SessionID] = true
	if _, err := c.chat("in the fork"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		ids[c.session(wire.SessionParams{}).SessionID] = true
	}
	if len(ids) != 22 {
		t.Errorf("got %d distinct ids for 22 sessions", len(ids))
	}
	for id := range ids {
		if !hexSessionID.MatchString(id) {
			t.Errorf("session id %q is not 32 hex digits (128 bits)", id)
		}
	}
	b.peer.Close(nil)
	c.peer.Close(nil)
	waitFor(t, "the sockets to close", func() bool { return ts.ConnCount() == 0 })

	entries := logs.All()
	if len(entries) < 10 {
		t.Fatalf("got %d log entries, want the debug log of the whole scenario", len(entries))
	}
	shortSeen := false
	for _, e := range entries {
		line := e.Message + " " + fmt.Sprint(e.ContextMap())
		for id := range ids {
			if strings.Contains(line, id) {
				t.Errorf("log line %q contains a full session id", line)
			}
			shortSeen = shortSeen || strings.Contains(line, id[:8])
		}
	}
	if !shortSeen {
		t.Error("no log line names a session by its short id; the test looks at the wrong logs")
	}
}

func TestIdleSessionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Hour // checked every ttl/10
		st := store.NewMemory()
		srv := fakeTimeServer(t, Config{Store: st, Model: textModel("ok"), SessionTTL: ttl})
		chatOn := func(p *fakeTimePage) {
			if err := p.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "hi"}, nil); err != nil {
				t.Fatal(err)
			}
		}
		idle := connectFakeTimePage(t, srv, nil)
		idleID := idle.session(t, wire.SessionParams{}).SessionID
		chatOn(idle)
		idle.peer.Close(nil)
		busy := connectFakeTimePage(t, srv, nil)
		busyID := busy.session(t, wire.SessionParams{}).SessionID
		chatOn(busy) // a session is stored from its first turn on
		busy.peer.Close(nil)
		synctest.Wait()

		exists := func(id string) bool {
			_, err := st.Load(context.Background(), id)
			return err == nil
		}
		time.Sleep(50 * time.Minute)
		synctest.Wait()
		if !exists(idleID) || !exists(busyID) {
			t.Fatal("sessions expired before their TTL")
		}
		busy = connectFakeTimePage(t, srv, nil)
		busy.session(t, wire.SessionParams{SessionID: busyID})
		chatOn(busy) // used again at 50 min: its TTL starts over
		busy.peer.Close(nil)

		time.Sleep(ttl + ttl/10 - 50*time.Minute + time.Second)
		synctest.Wait()
		if exists(idleID) {
			t.Error("a session idle for longer than SessionTTL (plus one check period) is still stored")
		}
		if !exists(busyID) {
			t.Error("a session used 20 minutes ago expired")
		}
		late := connectFakeTimePage(t, srv, nil)
		err := late.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: idleID}, nil)
		if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
			t.Errorf("resuming an expired session: got %v, want %d", err, wire.CodeSessionNotFound)
		}
		late.peer.Close(nil)

		time.Sleep(ttl)
		synctest.Wait()
		if exists(busyID) {
			t.Error("the second session outlived its TTL")
		}
	})
}

// TestOpenTabKeepsItsSession: a session whose socket stays attached is not expired, however
// long the visitor stays without writing.
func TestOpenTabKeepsItsSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Hour
		st := store.NewMemory()
		srv := fakeTimeServer(t, Config{Store: st, Model: textModel("ok"), SessionTTL: ttl})
		open := connectFakeTimePage(t, srv, nil)
		id := open.session(t, wire.SessionParams{}).SessionID
		if err := open.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "hi"}, nil); err != nil {
			t.Fatal(err) // a session is stored from its first turn on
		}
		synctest.Wait()
		time.Sleep(3 * ttl)
		synctest.Wait()
		if _, err := st.Load(context.Background(), id); err != nil {
			t.Fatalf("the session of an open tab expired: %v", err)
		}
		open.peer.Close(nil)
		synctest.Wait()
		time.Sleep(ttl + ttl/10 + time.Second)
		synctest.Wait()
		if _, err := st.Load(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after the tab closed and the TTL passed: got %v, want ErrNotFound", err)
		}
	})
}
