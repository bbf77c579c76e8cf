package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// The tests of DESIGN.md's "Safety defaults" under abuse: each checks that the abusive socket
// is refused or dropped the documented way and that the other sessions do not notice.

// quiet keeps the server's logs at Warn, so tests with many sockets stay fast.
func quiet(t *testing.T) func(*Config) {
	return func(c *Config) { c.Logger = zaptest.NewLogger(t, zaptest.Level(zapcore.WarnLevel)) }
}

// rawSocket is a page that writes frames of its choosing and never answers the agent; it
// counts the responses it gets.
type rawSocket struct {
	c    *websocket.Conn
	done chan struct{} // closed when reading has ended
	err  error         // why reading ended; set before done is closed

	lock     sync.Mutex
	results  int
	codes    map[int64]int   // error responses by code
	ids      map[string]bool // ids of the responses, as JSON text
	requests map[string]int  // the agent's requests and notifications by method
}

// dialRaw opens a raw socket; the server's handshake with it stays unanswered.
func dialRaw(t *testing.T, ts *testServer, origin string) *rawSocket {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(ts.wsURL, http.Header{"Origin": {origin}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	r := &rawSocket{c: c, done: make(chan struct{}), codes: map[int64]int{}, ids: map[string]bool{}, requests: map[string]int{}}
	go r.read()
	t.Cleanup(func() {
		c.Close()
		<-r.done
	})
	return r
}

func (r *rawSocket) read() {
	defer close(r.done)
	for {
		_, data, err := r.c.ReadMessage()
		if err != nil {
			r.err = err
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *wsrpc.Error    `json:"error"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		r.lock.Lock()
		if m.Method != "" { // a request or notification of the agent
			r.requests[m.Method]++
			r.lock.Unlock()
			continue
		}
		r.ids[string(m.ID)] = true
		if m.Error != nil {
			r.codes[m.Error.Code]++
		} else {
			r.results++
		}
		r.lock.Unlock()
	}
}

func (r *rawSocket) write(t *testing.T, s string) {
	t.Helper()
	if err := r.c.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// counts returns the results and the error responses with code.
func (r *rawSocket) counts(code int64) (results, errs int) {
	r.lock.Lock()
	defer r.lock.Unlock()
	return r.results, r.codes[code]
}

func (r *rawSocket) answered(id string) bool {
	r.lock.Lock()
	defer r.lock.Unlock()
	return r.ids[id]
}

// waitInitialize waits for the agent's initialize request, after which the agent writes
// nothing more to a page that does not answer: a frame the test sends then cannot race a
// write of the agent (whose failure would be the reason the socket ended).
func (r *rawSocket) waitInitialize(t *testing.T) {
	t.Helper()
	waitFor(t, "the agent's initialize", func() bool {
		r.lock.Lock()
		defer r.lock.Unlock()
		return r.requests[wire.MethodInitialize] > 0
	})
}

// wantClose waits for the server to close the socket with code.
func (r *rawSocket) wantClose(t *testing.T, code int) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(waitLimit):
		t.Fatalf("the socket was not closed, want close %d", code)
	}
	var ce *websocket.CloseError
	if !errors.As(r.err, &ce) || ce.Code != code {
		t.Errorf("got %v, want close %d", r.err, code)
	}
}

// echoOnceOr is a model that calls echo once per user message and then answers, except
// for the user text "stream N", which it answers with N words streamed one by one.
func echoOnceOr() *scriptModel {
	return &scriptModel{reply: func(_ int, req llm.Request) (*llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		var n int
		if _, err := fmt.Sscanf(last.Content, "stream %d", &n); err == nil && last.Role == chat.RoleUser {
			return &llm.Response{Text: strings.Repeat("word ", n)}, nil
		}
		if last.Role == chat.RoleTool {
			return &llm.Response{Text: "all done"}, nil
		}
		return &llm.Response{ToolCalls: []chat.ToolCall{call("e1", "echo", `{"text":"x"}`)}}, nil
	}}
}

// turnOK runs one turn and fails the test unless it ended normally after one tool call.
func turnOK(t *testing.T, p *fakePage, text string) {
	t.Helper()
	res, err := p.chat(text)
	if err != nil || res.StopReason != wire.StopEnd || res.Text != "all done" {
		t.Errorf("turn %q: got %+v %v, want a normal end", text, res, err)
	}
}

func TestLimitRefusedOrigin(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) { c.AllowedOrigins = []string{"https://shop.example"} })
	for _, origin := range []string{"", "null", "https://evil.example", "http://localhost:3000", "https://shop.example.evil.example"} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		c, resp, err := websocket.DefaultDialer.Dial(ts.wsURL, h)
		if c != nil {
			c.Close()
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden || !errors.Is(err, websocket.ErrBadHandshake) {
			t.Errorf("origin %q: got %v %v, want HTTP 403 before the upgrade", origin, resp, err)
		}
	}
	if n := ts.ConnCount(); n != 0 {
		t.Errorf("got %d sockets, want 0", n)
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_refused_total{reason="origin"}`: 5, "byomcp_open_sockets": 0})
}

// TestLimitOversizeFrame: a frame over the 1 MiB default closes that socket with 1009; a
// frame of exactly 1 MiB is answered; chat text is limited to 32 KiB; the other page's turn
// is not disturbed.
func TestLimitOversizeFrame(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), func(c *Config) { quiet(t)(c); c.HandshakeTimeout = time.Minute })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})

	frame := func(size int) string {
		head, tail := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`, `"}}`
		return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	}
	fits := dialRaw(t, ts, testOrigin)
	fits.write(t, frame(1<<20))
	waitFor(t, "the 1 MiB frame to be answered", func() bool { return fits.answered(`"big"`) })

	big := dialRaw(t, ts, testOrigin)
	big.waitInitialize(t)
	big.write(t, frame(1<<20+1))
	big.wantClose(t, websocket.CloseMessageTooBig)

	turnOK(t, page, "still there?")
	select {
	case <-fits.done:
		t.Errorf("the socket that sent 1 MiB was closed: %v", fits.err)
	default:
	}

	var res wire.ChatResult
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := page.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: strings.Repeat("a", 32<<10+1)}, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeTextTooLong, "")) {
		t.Errorf("chat text of 32 KiB + 1: got %v, want code %d", err, wire.CodeTextTooLong)
	}
	waitMetric(t, ts.Server, `byomcp_refused_total{reason="too_big"}`, 1)
}

// TestLimitFloodIsRateLimited: a socket that floods requests and notifications gets
// "rate limited" errors once its burst is spent and is then closed with 1008; another
// page's turns run meanwhile without an error.
func TestLimitFloodIsRateLimited(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), func(c *Config) { quiet(t)(c); c.HandshakeTimeout = time.Minute })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(wire.SessionParams{})
	flood := dialRaw(t, ts, testOrigin)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 3 {
			turnOK(t, page, fmt.Sprintf("turn %d", i))
		}
	}()
	// Defaults: 50 messages/s, burst 200, closed after 10×200 refusals. Every tenth message
	// is a request (answered), the rest notifications (not), so the replies cannot fill the
	// agent's send queue whatever the scheduling.
	sent := 0
	for ; sent < 20000; sent++ {
		msg := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"none","progress":1}}`
		if sent%10 == 0 {
			msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, sent)
		}
		if flood.c.WriteMessage(websocket.TextMessage, []byte(msg)) != nil {
			break
		}
		select {
		case <-flood.done:
		default:
			continue
		}
		break
	}
	flood.wantClose(t, websocket.ClosePolicyViolation)
	wg.Wait()
	results, limited := flood.counts(wire.CodeRateLimited)
	if results == 0 || limited == 0 {
		t.Errorf("got %d results and %d rate-limited errors, want some of each", results, limited)
	}
	if sent < 2200 {
		t.Errorf("closed after %d messages, want at least the burst plus 10×burst refusals (2200)", sent)
	}
	turnOK(t, page, "after the flood")
	waitFor(t, "the flooding socket to be gone", func() bool { return ts.ConnCount() == 1 })
	wantMetrics(t, ts.Server, map[string]float64{
		`byomcp_refused_total{reason="rate_limit"}`: 1,
		"byomcp_open_sockets":                       1,
	})
}

// gateConn is a MessageConn whose reading can be stopped, like a page whose tab hangs.
type gateConn struct {
	wsrpc.MessageConn
	stop   chan struct{} // closed: ReadMessage blocks until Close
	closed chan struct{}
	once   sync.Once
}

func (g *gateConn) ReadMessage() ([]byte, error) {
	select {
	case <-g.stop:
		<-g.closed
		return nil, net.ErrClosed
	default:
	}
	return g.MessageConn.ReadMessage()
}

func (g *gateConn) Close() error {
	g.once.Do(func() { close(g.closed) })
	return g.MessageConn.Close()
}

// testPage is a quiet page over a real socket or a pipe. It answers the agent like a page
// whose tool "echo" (or "wait", when it has a wait function) is called by the test models,
// records its events, and keeps the error that ended its reading.
type testPage struct {
	*wsrpc.Peer
	events eventLog
	conn   *recConn
}

// pageOpts configures a testPage.
type pageOpts struct {
	// wrap replaces the page's end of the connection (nil: as is).
	wrap func(wsrpc.MessageConn) wsrpc.MessageConn
	// wait, when set, is the body of a tool "wait" offered instead of "echo".
	wait func(ctx context.Context) (any, error)
}

// wsPage connects a testPage over a real socket.
func wsPage(t *testing.T, ts *testServer, o pageOpts) *testPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	mc, _, err := wsrpc.Dial(ctx, ts.wsURL, http.Header{"Origin": {testOrigin}}, wsrpc.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return startPage(t, mc, o)
}

// pipePage connects a testPage to srv over an in-memory pipe.
func pipeTestPage(t *testing.T, srv *Server, o pageOpts) *testPage {
	t.Helper()
	agentEnd, pageEnd := wsrpc.Pipe()
	srv.serve(context.Background(), agentEnd, testOrigin)
	return startPage(t, pageEnd, o)
}

func startPage(tb testing.TB, mc wsrpc.MessageConn, o pageOpts) *testPage {
	if o.wrap != nil {
		mc = o.wrap(mc)
	}
	p := &testPage{conn: &recConn{MessageConn: mc, done: make(chan struct{})}}
	p.Peer = wsrpc.NewPeer(p.conn, wsrpc.Options{PingInterval: -1})
	tool := wire.PageTool{Name: "echo", InputSchema: echoSchema}
	if o.wait != nil {
		tool = wire.PageTool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	p.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "limits", Version: "1"}}, nil
	})
	p.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		defer p.events.listed.Store(true)
		return wire.ToolsListResult{Tools: []wire.PageTool{tool}}, nil
	})
	p.Handle(wire.MethodToolsCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		if o.wait != nil {
			return o.wait(ctx)
		}
		var cp wire.ToolsCallParams
		if err := json.Unmarshal(req.Params, &cp); err != nil {
			return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, err.Error())
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + string(cp.Arguments)}}}, nil
	})
	p.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) { p.events.add(req.Params) })
	p.Start()
	tb.Cleanup(func() { p.Close(nil); _ = p.Wait() })
	return p
}

// call makes a request of the agent within waitLimit.
func (p *testPage) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	return p.Call(ctx, method, params, result)
}

// recConn keeps the error that ended reading (the close status the page got).
type recConn struct {
	wsrpc.MessageConn
	once sync.Once
	err  error
	done chan struct{} // closed once err is set
}

func (r *recConn) ReadMessage() ([]byte, error) {
	b, err := r.MessageConn.ReadMessage()
	if err != nil {
		r.once.Do(func() { r.err = err; close(r.done) })
	}
	return b, err
}

// waitTool blocks until released or cancelled, telling started when it runs.
func waitTool(started chan<- struct{}, release <-chan struct{}) func(ctx context.Context) (any, error) {
	return func(ctx context.Context) (any, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-release:
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "released"}}}, nil
		}
	}
}

// TestLimitSlowReaderIsDropped: a page that stops reading while its turn streams is dropped
// once its send queue is full (not blocking anyone), the turn goes on without it, and the
// page resumes by lastSeq; another page's turn is not disturbed.
func TestLimitSlowReaderIsDropped(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), func(c *Config) {
		quiet(t)(c)
		c.TextDeltaPerChunk = true // 2000 events, not fewer joined while the store writes
	})
	other := newFakePage(t, ts, testOrigin, echoTool())
	other.session(wire.SessionParams{})

	gate := &gateConn{stop: make(chan struct{}), closed: make(chan struct{})}
	slow := pipeTestPage(t, ts.Server, pageOpts{wrap: func(c wsrpc.MessageConn) wsrpc.MessageConn { gate.MessageConn = c; return gate }})
	var sess wire.SessionResult
	if err := slow.call(wire.MethodAgentSession, wire.SessionParams{}, &sess); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the handshake to end", func() bool { return slow.events.listed.Load() })
	close(gate.stop)
	// 2000 streamed words are 2000 events: far more than the 256 the send queue holds.
	go func() { _ = slow.call(wire.MethodAgentChat, wire.ChatParams{Text: "stream 2000"}, nil) }()
	waitMetric(t, ts.Server, "byomcp_slow_clients_dropped_total", 1)
	waitFor(t, "only the other socket to remain", func() bool { return ts.ConnCount() == 1 })
	turnOK(t, other, "unaffected?")
	waitMetric(t, ts.Server, `byomcp_turns_total{stop_reason="end"}`, 2) // the streaming turn went on without its page

	// The tab comes back and resumes after the last event it saw; the end is replayed.
	back := pipeTestPage(t, ts.Server, pageOpts{})
	replayed := &back.events
	last := slow.events.lastSeq()
	var res wire.SessionResult
	if err := back.call(wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.SessionID != sess.SessionID || res.Seq <= last {
		t.Errorf("got %+v after seq %d, want the session resumed with later events", res, last)
	}
	waitFor(t, "the missed events to be replayed", func() bool { return replayed.lastSeq() == res.Seq })
	// Replayed text deltas are merged into one event carrying the seq of the last of them.
	evs := replayed.all()
	if evs[0].Seq <= last || evs[len(evs)-1].Type != wire.EventTurnEnd || evs[len(evs)-1].StopReason != wire.StopEnd {
		t.Errorf("got replayed events %v (first seq %d), want events after seq %d up to turn_end", types(evs), evs[0].Seq, last)
	}
}

// eventLog records the agent/event notifications a page got, and whether the agent has
// listed its tools.
type eventLog struct {
	listed atomic.Bool
	lock   sync.Mutex
	evs    []event
}

func (l *eventLog) add(raw json.RawMessage) {
	var e event
	_ = json.Unmarshal(raw, &e)
	l.lock.Lock()
	l.evs = append(l.evs, e)
	l.lock.Unlock()
}

func (l *eventLog) all() []event {
	l.lock.Lock()
	defer l.lock.Unlock()
	return append([]event(nil), l.evs...)
}

// lastSeq is the seq of the last event seen (0 for none).
func (l *eventLog) lastSeq() int64 {
	l.lock.Lock()
	defer l.lock.Unlock()
	if len(l.evs) == 0 {
		return 0
	}
	return l.evs[len(l.evs)-1].Seq
}

// TestLimitMalformedFramesDoNotDisturbOthers: 1,000 malformed frames from one socket while
// 100 other sessions complete their turns with 0 errors; the malformed socket is answered as
// the specification says and stays open.
func TestLimitMalformedFramesDoNotDisturbOthers(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), func(c *Config) { quiet(t)(c); c.HandshakeTimeout = time.Minute })
	const sessions = 100
	pages := make([]*testPage, sessions)
	for i := range pages {
		pages[i] = wsPage(t, ts, pageOpts{})
	}
	for _, p := range pages {
		if err := p.call(wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	bad := dialRaw(t, ts, testOrigin)
	malformed := []string{
		`not json`,
		`{`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1}`,
		`{"jsonrpc":"2.0","method":5}`,
		`"just a string"`,
		`null`,
		// Text that is not UTF-8 closes the socket with 1007 (wsrpc.TestWebSocketInvalidUTF8).
	}

	var wg sync.WaitGroup
	var failed atomic.Int64
	for _, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res wire.ChatResult
			if err := p.call(wire.MethodAgentChat, wire.ChatParams{Text: "go"}, &res); err != nil || res.StopReason != wire.StopEnd {
				failed.Add(1)
				t.Errorf("got %+v %v, want a normal turn", res, err)
			}
		}()
	}
	for i := range 1000 {
		bad.write(t, malformed[i%len(malformed)])
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("got %d failed turns, want 0", n)
	}
	bad.write(t, `{"jsonrpc":"2.0","id":"final","method":"ping"}`)
	waitFor(t, "the malformed socket to be answered", func() bool { return bad.answered(`"final"`) })
	_, parse := bad.counts(wsrpc.CodeParseError)
	_, invalid := bad.counts(wsrpc.CodeInvalidRequest)
	if parse == 0 || invalid == 0 {
		t.Errorf("got %d parse errors and %d invalid requests, want some of each", parse, invalid)
	}
	wantMetrics(t, ts.Server, map[string]float64{
		`byomcp_turns_total{stop_reason="end"}`:             sessions,
		`byomcp_tool_calls_total{kind="page",outcome="ok"}`: sessions,
		"byomcp_open_sockets":                               sessions + 1,
	})
}

// wantClosedWith waits for the agent to close a page's socket and checks the status.
func wantClosedWith(t *testing.T, p *testPage, code int) {
	t.Helper()
	select {
	case <-p.conn.done:
	case <-time.After(waitLimit):
		t.Fatalf("the socket is still open, want close %d", code)
	}
	var ce *websocket.CloseError
	if !errors.As(p.conn.err, &ce) || ce.Code != code {
		t.Errorf("got %v, want close %d", p.conn.err, code)
	}
}

// TestLimitGracefulShutdown: Shutdown refuses new sockets, lets a running turn finish (or
// cancels it when the grace period ends) and sends its end, then closes every socket with
// 1001. (That the agent/chat request itself is answered is TestLimitShutdownAnswersChats.)
func TestLimitGracefulShutdown(t *testing.T) {
	for _, tt := range []struct {
		name     string
		release  bool // the tool returns; else it waits until cancelled
		wantStop string
	}{
		{"turn finishes", true, wire.StopEnd},
		{"turn cancelled after the grace period", false, wire.StopCancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			grace := time.Hour
			if !tt.release {
				grace = 50 * time.Millisecond
			}
			ts := newTestServer(t, callOnce("wait"), func(c *Config) { quiet(t)(c); c.ShutdownGrace = grace })
			idle := make([]*testPage, 10)
			for i := range idle {
				idle[i] = wsPage(t, ts, pageOpts{})
				if err := idle[i].call(wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
					t.Fatal(err)
				}
			}
			started, release := make(chan struct{}, 1), make(chan struct{})
			busy := wsPage(t, ts, pageOpts{wait: waitTool(started, release)})
			if err := busy.call(wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
				t.Fatal(err)
			}
			go func() { _ = busy.call(wire.MethodAgentChat, wire.ChatParams{Text: "wait for it"}, nil) }()
			<-started

			shut := startShutdown(t, ts)
			if tt.release {
				for _, p := range append(idle, busy) {
					select {
					case <-p.conn.done:
						t.Fatal("a socket was closed while a turn was still running")
					default:
					}
				}
				close(release)
			}
			for _, p := range append(idle, busy) {
				wantClosedWith(t, p, websocket.CloseGoingAway)
			}
			evs := busy.events.all()
			if n := len(evs); n == 0 || evs[n-1].Type != wire.EventTurnEnd || evs[n-1].StopReason != tt.wantStop {
				t.Errorf("got events %v, want them to end with turn_end, stopReason %s", types(evs), tt.wantStop)
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			waitFor(t, "every socket to be gone", func() bool { return ts.ConnCount() == 0 })
		})
	}
}

// TestLimitShutdownAnswersChats: the agent/chat requests of the turns that Shutdown let
// finish are answered before their sockets close with 1001. Fifty turns end at once, so
// a reply that races the close is lost on most runs.
func TestLimitShutdownAnswersChats(t *testing.T) {
	ts := newTestServer(t, callOnce("wait"), quiet(t))
	const n = 50
	started, release := make(chan struct{}, n), make(chan struct{})
	pages := make([]*testPage, n)
	answers := make(chan error, n)
	for i := range pages {
		pages[i] = wsPage(t, ts, pageOpts{wait: waitTool(started, release)})
		if err := pages[i].call(wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pages {
		go func() {
			var res wire.ChatResult
			err := p.call(wire.MethodAgentChat, wire.ChatParams{Text: "wait for it"}, &res)
			if err == nil && res.StopReason != wire.StopEnd {
				err = fmt.Errorf("got stopReason %q, want end", res.StopReason)
			}
			answers <- err
		}()
	}
	for range n {
		<-started
	}
	shut := startShutdown(t, ts)
	close(release)
	lost := 0
	for range n {
		if err := <-answers; err != nil {
			lost++
			t.Log(err)
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d agent/chat requests got no answer before the 1001 close, want 0", lost, n)
	}
	for _, p := range pages {
		wantClosedWith(t, p, websocket.CloseGoingAway)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// startShutdown starts ts.Shutdown, waits until it refuses new sockets (503) and returns the
// channel its result arrives on.
func startShutdown(t *testing.T, ts *testServer) <-chan error {
	t.Helper()
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		shut <- ts.Shutdown(ctx)
	}()
	waitFor(t, "new sockets to be refused", func() bool {
		c, resp, _ := websocket.DefaultDialer.Dial(ts.wsURL, http.Header{"Origin": {testOrigin}})
		if c != nil {
			c.Close()
		}
		return resp != nil && resp.StatusCode == http.StatusServiceUnavailable
	})
	return shut
}

// ourGoroutines returns the stacks of the goroutines (other than the caller) that run code
// of this module or of gorilla/websocket.
func ourGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // the caller
		}
		if strings.Contains(g, "github.com/byomcp/byomcp/") || strings.Contains(g, "github.com/gorilla/websocket") {
			out = append(out, g)
		}
	}
	return out
}

// waitGoroutines waits until at most n of ourGoroutines are left.
func waitGoroutines(t *testing.T, what string, n int) {
	t.Helper()
	var left []string
	if !pollUntil(time.Now().Add(waitLimit), func() bool { left = ourGoroutines(); return len(left) <= n }) {
		t.Fatalf("%s: %d goroutines left, want at most %d:\n\n%s", what, len(left), n, strings.Join(left, "\n\n"))
	}
}

// TestLimitNoGoroutineLeftBehind: after 20 sessions ran turns and their sockets closed, the
// server is back to the goroutines it had before the first socket; after Shutdown, to none.
func TestLimitNoGoroutineLeftBehind(t *testing.T) {
	before := len(ourGoroutines())
	ts := newTestServer(t, echoOnceOr(), quiet(t))
	idle := len(ourGoroutines())
	pages := make([]*testPage, 20)
	for i := range pages {
		pages[i] = wsPage(t, ts, pageOpts{})
	}
	var wg sync.WaitGroup
	for _, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res wire.ChatResult
			if err := p.call(wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
				t.Error(err)
				return
			}
			if err := p.call(wire.MethodAgentChat, wire.ChatParams{Text: "go"}, &res); err != nil || res.StopReason != wire.StopEnd {
				t.Errorf("got %+v %v, want a normal turn", res, err)
			}
		}()
	}
	wg.Wait()
	if len(ourGoroutines()) <= idle {
		t.Fatal("the open sessions run no goroutine: this test would not see a leak")
	}
	// Once idle, a socket costs one goroutine at each end: its reader (no writer, no handler).
	waitGoroutines(t, "20 idle sessions", idle+2*len(pages))
	for _, p := range pages {
		p.Close(nil)
		_ = p.Wait()
	}
	waitFor(t, "every socket to close", func() bool { return ts.ConnCount() == 0 })
	waitGoroutines(t, "after every socket closed", idle)
	if m := metric(t, ts.Server, "byomcp_live_sessions"); m != 0 {
		t.Errorf("got %v live sessions, want 0", m)
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ts.http.Close()
	waitGoroutines(t, "after Shutdown", before)
}

// BenchmarkTurn measures the agent's own work per turn (model excluded: the model is an
// in-process script): agent/chat → model call → one tools/call to the page → model call →
// answer, with every event stored and sent. Sessions are renewed every 100 turns so the
// history stays short.
func BenchmarkTurn(b *testing.B) {
	for _, transport := range []string{"pipe", "websocket"} {
		b.Run(transport, func(b *testing.B) { benchmarkTurns(b, echoOnceOr(), transport, 100) })
	}
}

// benchmarkTurns runs a turn per op on one page connected over transport ("pipe" or
// "websocket"), on the memory store, with a new conversation every renew turns.
func benchmarkTurns(b *testing.B, model llm.Model, transport string, renew int) {
	srv, err := NewServer(Config{Store: newTestStore(), Model: model, RateLimit: -1}) // unlimited: one socket sends as fast as it can
	if err != nil {
		b.Fatal(err)
	}
	var mc wsrpc.MessageConn
	if transport == "pipe" {
		agentEnd, pageEnd := wsrpc.Pipe()
		srv.serve(context.Background(), agentEnd, testOrigin)
		mc = pageEnd
	} else {
		hs := httptest.NewServer(srv)
		defer hs.Close()
		mc, _, err = wsrpc.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), http.Header{"Origin": {testOrigin}}, wsrpc.WSOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	page := startPage(b, mc, pageOpts{})
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i%renew == 0 {
			if err := page.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
				b.Fatal(err)
			}
		}
		i++
		var res wire.ChatResult
		if err := page.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "go"}, &res); err != nil || res.StopReason != wire.StopEnd {
			b.Fatalf("got %+v %v, want a normal turn", res, err)
		}
	}
	b.StopTimer()
	sctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	_ = srv.Shutdown(sctx)
}
