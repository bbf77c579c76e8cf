package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
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

	mu      sync.Mutex
	results int
	codes   map[int64]int   // error responses by code
	ids     map[string]bool // ids of the responses, as JSON text
}

// dialRaw opens a raw socket; the server's handshake with it stays unanswered.
func dialRaw(t *testing.T, ts *testServer, origin string) *rawSocket {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(ts.wsURL, http.Header{"Origin": {origin}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	r := &rawSocket{c: c, done: make(chan struct{}), codes: map[int64]int{}, ids: map[string]bool{}}
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
		if json.Unmarshal(data, &m) != nil || m.Method != "" {
			continue // a request or notification of the agent
		}
		r.mu.Lock()
		r.ids[string(m.ID)] = true
		if m.Error != nil {
			r.codes[m.Error.Code]++
		} else {
			r.results++
		}
		r.mu.Unlock()
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
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.results, r.codes[code]
}

func (r *rawSocket) answered(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
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
	if err != nil || res.StopReason != StopEnd || res.Text != "all done" {
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
	page.session(SessionParams{})

	frame := func(size int) string {
		head, tail := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`, `"}}`
		return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	}
	fits := dialRaw(t, ts, testOrigin)
	fits.write(t, frame(1<<20))
	waitFor(t, "the 1 MiB frame to be answered", func() bool { return fits.answered(`"big"`) })

	big := dialRaw(t, ts, testOrigin)
	big.write(t, frame(1<<20+1))
	big.wantClose(t, websocket.CloseMessageTooBig)

	turnOK(t, page, "still there?")
	select {
	case <-fits.done:
		t.Errorf("the socket that sent 1 MiB was closed: %v", fits.err)
	default:
	}

	var res ChatResult
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := page.peer.Call(ctx, MethodAgentChat, ChatParams{Text: strings.Repeat("a", 32<<10+1)}, &res)
	if !errors.Is(err, wsrpc.NewError(CodeTextTooLong, "")) {
		t.Errorf("chat text of 32 KiB + 1: got %v, want code %d", err, CodeTextTooLong)
	}
	waitMetric(t, ts.Server, `byomcp_refused_total{reason="too_big"}`, 1)
}

// TestLimitFloodIsRateLimited: a socket that floods requests and notifications gets
// "rate limited" errors once its burst is spent and is then closed with 1008; another
// page's turns run meanwhile without an error.
func TestLimitFloodIsRateLimited(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), func(c *Config) { quiet(t)(c); c.HandshakeTimeout = time.Minute })
	page := newFakePage(t, ts, testOrigin, echoTool())
	page.session(SessionParams{})
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
	results, limited := flood.counts(CodeRateLimited)
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

// pipePeer connects a page to srv over an in-memory pipe, with the echo tool. wrap may
// replace the page's end of the pipe.
func pipePeer(t *testing.T, srv *Server, wrap func(wsrpc.MessageConn) wsrpc.MessageConn, events *eventLog) *wsrpc.Peer {
	t.Helper()
	agentEnd, pageEnd := wsrpc.Pipe()
	go srv.serveConn(context.Background(), agentEnd, testOrigin)
	peer := wsrpc.NewPeer(wrap(pageEnd), wsrpc.Options{PingInterval: -1})
	handleAsPage(peer, &events.listed)
	peer.HandleNotification(MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) { events.add(req.Params) })
	peer.Start()
	t.Cleanup(func() { peer.Close(nil) })
	return peer
}

// handleAsPage makes peer answer the agent like a page with the echo tool; listed is set
// once it answered tools/list.
func handleAsPage(peer *wsrpc.Peer, listed *atomic.Bool) {
	peer.Handle(MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return InitializeResult{ProtocolVersion: ProtocolVersion, ServerInfo: Implementation{Name: "limits", Version: "1"}}, nil
	})
	peer.Handle(MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	peer.Handle(MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		defer listed.Store(true)
		return ToolsListResult{Tools: []PageTool{{Name: "echo", InputSchema: echoSchema}}}, nil
	})
	peer.Handle(MethodToolsCall, func(_ context.Context, req *wsrpc.Request) (any, error) {
		var p ToolsCallParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, err.Error())
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + string(p.Arguments)}}}, nil
	})
}

// TestLimitSlowReaderIsDropped: a page that stops reading while its turn streams is dropped
// once its send queue is full (not blocking anyone), the turn goes on without it, and the
// page resumes by lastSeq; another page's turn is not disturbed.
func TestLimitSlowReaderIsDropped(t *testing.T) {
	ts := newTestServer(t, echoOnceOr(), quiet(t))
	other := newFakePage(t, ts, testOrigin, echoTool())
	other.session(SessionParams{})

	gate := &gateConn{stop: make(chan struct{}), closed: make(chan struct{})}
	var seen eventLog
	slow := pipePeer(t, ts.Server, func(c wsrpc.MessageConn) wsrpc.MessageConn { gate.MessageConn = c; return gate }, &seen)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var sess SessionResult
	if err := slow.Call(ctx, MethodAgentSession, SessionParams{}, &sess); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the handshake to end", func() bool { return seen.listed.Load() })
	close(gate.stop)
	// 2000 streamed words are 2000 events: far more than the 256 the send queue holds.
	go func() { _ = slow.Call(ctx, MethodAgentChat, ChatParams{Text: "stream 2000"}, nil) }()
	waitMetric(t, ts.Server, "byomcp_slow_clients_dropped_total", 1)
	waitFor(t, "only the other socket to remain", func() bool { return ts.ConnCount() == 1 })
	turnOK(t, other, "unaffected?")
	waitMetric(t, ts.Server, `byomcp_turns_total{stop_reason="end"}`, 2) // the streaming turn went on without its page

	// The tab comes back and resumes after the last event it saw; the end is replayed.
	var replayed eventLog
	back := pipePeer(t, ts.Server, func(c wsrpc.MessageConn) wsrpc.MessageConn { return c }, &replayed)
	last := seen.lastSeq()
	var res SessionResult
	if err := back.Call(ctx, MethodAgentSession, SessionParams{SessionID: sess.SessionID, LastSeq: &last}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.SessionID != sess.SessionID || res.Seq <= last {
		t.Errorf("got %+v after seq %d, want the session resumed with later events", res, last)
	}
	waitFor(t, "the missed events to be replayed", func() bool { return replayed.lastSeq() == res.Seq })
	// Replayed text deltas are merged into one event carrying the seq of the last of them.
	evs := replayed.all()
	if evs[0].Seq <= last || evs[len(evs)-1].Type != EventTurnEnd || evs[len(evs)-1].StopReason != StopEnd {
		t.Errorf("got replayed events %v (first seq %d), want events after seq %d up to turn_end", types(evs), evs[0].Seq, last)
	}
}

// eventLog records the agent/event notifications a page got, and whether the agent has
// listed its tools.
type eventLog struct {
	listed atomic.Bool
	mu     sync.Mutex
	evs    []event
}

func (l *eventLog) add(raw json.RawMessage) {
	var e event
	_ = json.Unmarshal(raw, &e)
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

func (l *eventLog) all() []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event(nil), l.evs...)
}

// lastSeq is the seq of the last event seen (0 for none).
func (l *eventLog) lastSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	pages := make([]*wsrpc.Peer, sessions)
	var events atomic.Int64
	for i := range pages {
		pages[i] = wsPeer(t, ts, &events)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, p := range pages {
		if err := p.Call(ctx, MethodAgentSession, SessionParams{}, nil); err != nil {
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
		"\xff\xfe{\"jsonrpc\":\"2.0\"}",
	}

	var wg sync.WaitGroup
	var failed atomic.Int64
	for _, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res ChatResult
			if err := p.Call(ctx, MethodAgentChat, ChatParams{Text: "go"}, &res); err != nil || res.StopReason != StopEnd {
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

// wsPeer connects a quiet page with the echo tool over a real socket.
func wsPeer(t *testing.T, ts *testServer, events *atomic.Int64) *wsrpc.Peer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	mc, _, err := wsrpc.Dial(ctx, ts.wsURL, http.Header{"Origin": {testOrigin}}, wsrpc.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	peer := wsrpc.NewPeer(mc, wsrpc.Options{PingInterval: -1})
	handleAsPage(peer, new(atomic.Bool))
	peer.HandleNotification(MethodAgentEvent, func(context.Context, *wsrpc.Request) { events.Add(1) })
	peer.Start()
	t.Cleanup(func() { peer.Close(nil); _ = peer.Wait() })
	return peer
}

// wantClosedWith waits for a page peer to end and checks the close status it got.
func wantClosedWith(t *testing.T, p *wsrpc.Peer, code int) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(waitLimit):
		t.Fatalf("the socket is still open, want close %d", code)
	}
	var ce *websocket.CloseError
	if err := p.Wait(); !errors.As(err, &ce) || ce.Code != code {
		t.Errorf("got %v, want close %d", err, code)
	}
}

// TestLimitGracefulShutdown: Shutdown refuses new sockets, lets a running turn finish (or
// cancels it when the grace period ends), answers it, then closes every socket with 1001.
func TestLimitGracefulShutdown(t *testing.T) {
	for _, tt := range []struct {
		name     string
		release  bool // the tool returns; else it waits until cancelled
		wantStop string
	}{
		{"turn finishes", true, StopEnd},
		{"turn cancelled after the grace period", false, StopCancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			grace := time.Hour
			if !tt.release {
				grace = 50 * time.Millisecond
			}
			ts := newTestServer(t, callOnce("wait"), func(c *Config) { quiet(t)(c); c.ShutdownGrace = grace })
			idle := make([]*fakePage, 10)
			for i := range idle {
				idle[i] = newFakePage(t, ts, testOrigin, echoTool())
				idle[i].session(SessionParams{})
			}
			started, release := make(chan struct{}, 1), make(chan struct{})
			busy := newFakePage(t, ts, testOrigin, blockingTool(started, release))
			busy.session(SessionParams{})
			type chatDone struct {
				res ChatResult
				err error
			}
			turn := make(chan chatDone, 1)
			go func() { r, err := busy.chat("wait for it"); turn <- chatDone{r, err} }()
			<-started

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
			if tt.release {
				for _, p := range append(idle, busy) {
					select {
					case <-p.peer.Done():
						t.Fatal("a socket was closed while a turn was still running")
					default:
					}
				}
				close(release)
			}
			got := <-turn
			if got.err != nil || got.res.StopReason != tt.wantStop {
				t.Errorf("got %+v %v, want stopReason %s", got.res, got.err, tt.wantStop)
			}
			for _, p := range append(idle, busy) {
				wantClosedWith(t, p.peer, websocket.CloseGoingAway)
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			waitFor(t, "every socket to be gone", func() bool { return ts.ConnCount() == 0 })
		})
	}
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
	deadline := time.Now().Add(waitLimit)
	for {
		left := ourGoroutines()
		if len(left) <= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines left, want at most %d:\n\n%s", what, len(left), n, strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLimitNoGoroutineLeftBehind: after 20 sessions ran turns and their sockets closed, the
// server is back to the goroutines it had before the first socket; after Shutdown, to none.
func TestLimitNoGoroutineLeftBehind(t *testing.T) {
	before := len(ourGoroutines())
	ts := newTestServer(t, echoOnceOr(), quiet(t))
	idle := len(ourGoroutines())
	pages := make([]*wsrpc.Peer, 20)
	var events atomic.Int64
	for i := range pages {
		pages[i] = wsPeer(t, ts, &events)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res ChatResult
			if err := p.Call(ctx, MethodAgentSession, SessionParams{}, nil); err != nil {
				t.Error(err)
				return
			}
			if err := p.Call(ctx, MethodAgentChat, ChatParams{Text: "go"}, &res); err != nil || res.StopReason != StopEnd {
				t.Errorf("got %+v %v, want a normal turn", res, err)
			}
		}()
	}
	wg.Wait()
	if len(ourGoroutines()) <= idle {
		t.Fatal("the open sessions run no goroutine: this test would not see a leak")
	}
	for _, p := range pages {
		p.Close(nil)
		_ = p.Wait()
	}
	waitFor(t, "every socket to close", func() bool { return ts.ConnCount() == 0 })
	waitGoroutines(t, "after every socket closed", idle)
	if m := metric(t, ts.Server, "byomcp_live_sessions"); m != 0 {
		t.Errorf("got %v live sessions, want 0", m)
	}

	ctx2, cancel2 := context.WithTimeout(context.Background(), waitLimit)
	defer cancel2()
	if err := ts.Shutdown(ctx2); err != nil {
		t.Fatal(err)
	}
	ts.http.Close()
	waitGoroutines(t, "after Shutdown", before)
}
