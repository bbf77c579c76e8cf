package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Tests of issue 11 (A1): one owner per state, contained panics, the Host header, client
// budgets, ordered requests. Each names the defect of the table it is the
// regression test of.

// panicStore panics when a session with a given id is loaded: a fault inside a request
// handler of the page socket.
type panicStore struct {
	store.Store
	id string
}

func (s panicStore) Load(ctx context.Context, id string) (*store.Session, error) {
	if id == s.id {
		panic("store bug")
	}
	return s.Store.Load(ctx, id)
}

// panicRecord collects what Config.OnPanic is told, for tests of the containment itself.
type panicRecord struct {
	lock  sync.Mutex
	where []string
}

func (r *panicRecord) add(where string, _ any) {
	r.lock.Lock()
	r.where = append(r.where, where)
	r.lock.Unlock()
}

func (r *panicRecord) got() []string {
	r.lock.Lock()
	defer r.lock.Unlock()
	return slices.Clone(r.where)
}

// gateModel answers "done" once its gate is open; until then its calls wait.
type gateModel struct {
	gate    chan struct{}
	started chan struct{}
}

func (m *gateModel) Name() string { return "gate" }

func (m *gateModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1].Content
	if last == "panic" {
		panic("model stream bug")
	}
	select {
	case m.started <- struct{}{}:
	default:
	}
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	onDelta("done")
	return &llm.Response{Text: "done", FinishReason: "stop"}, nil
}

// A panic in a request handler of one socket closes that socket with 1011; another socket's
// turn, running meanwhile, completes; the panic is counted on /metrics.
func TestHandlerPanicClosesOnlyItsSocket(t *testing.T) {
	var rec panicRecord
	model := &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	ts := newTestServer(t, model, func(c *Config) {
		c.Store = panicStore{Store: c.Store, id: "0123456789abcdef0123456789abcdef"}
		c.OnPanic = rec.add
	})
	canary := newFakePage(t, ts, testOrigin, echoTool())
	canary.session(wire.SessionParams{})
	answer := make(chan wire.ChatResult, 1)
	go func() {
		res, err := canary.chat("hello")
		if err != nil {
			t.Errorf("canary chat: %v", err)
		}
		answer <- res
	}()
	<-model.started

	victim := newFakePage(t, ts, testOrigin)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := victim.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: "0123456789abcdef0123456789abcdef"}, nil)
	if !errors.Is(err, wsrpc.NewError(wsrpc.CodeInternalError, "")) {
		t.Errorf("agent/session that panics: got %v, want -32603", err)
	}
	var ce *websocket.CloseError
	if werr := victim.peer.Wait(); !errors.As(werr, &ce) || ce.Code != websocket.CloseInternalServerErr {
		t.Errorf("victim socket: got %v, want closed with 1011", werr)
	}

	close(model.gate)
	if res := <-answer; res.StopReason != wire.StopEnd || res.Text != "done" {
		t.Errorf("canary turn: got %+v, want stopReason end, text done", res)
	}
	if got := rec.got(); !slices.Equal(got, []string{"socket_handler"}) {
		t.Errorf("OnPanic: got %v, want [socket_handler]", got)
	}
	waitMetric(t, ts.Server, `byomcp_panics_total{where="socket_handler"}`, 1)
	// The canary's socket is still open and serves another turn.
	if res, err := canary.chat("again"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("canary second turn: got %+v, %v, want stopReason end", res, err)
	}
}

// A model stream that panics ends only its turn, with stopReason error: its agent/chat is
// answered, turn_end is sent, the session takes the next turn, and another session's turn
// completes meanwhile.
func TestModelPanicEndsOnlyThatTurn(t *testing.T) {
	var rec panicRecord
	model := &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	ts := newTestServer(t, model, func(c *Config) { c.OnPanic = rec.add })
	canary := newFakePage(t, ts, testOrigin)
	canary.session(wire.SessionParams{})
	answer := make(chan wire.ChatResult, 1)
	go func() {
		res, err := canary.chat("hello")
		if err != nil {
			t.Errorf("canary chat: %v", err)
		}
		answer <- res
	}()
	<-model.started

	page := newFakePage(t, ts, testOrigin)
	page.session(wire.SessionParams{})
	res, err := page.chat("panic")
	if err != nil || res.StopReason != wire.StopError {
		t.Fatalf("turn whose model panics: got %+v, %v, want stopReason error", res, err)
	}
	evs := page.eventsUntil(wire.EventTurnEnd)
	if got := types(evs); !slices.Equal(got, []string{wire.EventTurnStart, wire.EventError, wire.EventTurnEnd}) {
		t.Errorf("events: got %v, want turn_start, error, turn_end", got)
	}
	if end := evs[len(evs)-1]; end.StopReason != wire.StopError {
		t.Errorf("turn_end: got stopReason %q, want error", end.StopReason)
	}
	close(model.gate)
	if res := <-answer; res.StopReason != wire.StopEnd {
		t.Errorf("canary turn: got %+v, want stopReason end", res)
	}
	if res, err := page.chat("next"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("the next turn of the session: got %+v, %v, want stopReason end", res, err)
	}
	if got := rec.got(); !slices.Equal(got, []string{"model"}) {
		t.Errorf("OnPanic: got %v, want [model]", got)
	}
	wantMetrics(t, ts.Server, map[string]float64{
		`byomcp_panics_total{where="model"}`:      1,
		`byomcp_turns_total{stop_reason="error"}`: 1,
	})
}

// rawPage is a page socket driven frame by frame: it answers the agent's initialize,
// tools/list and ping itself and hands everything else to the test, so a test can send
// several requests back to back, in one write each, without waiting for answers.
type rawPage struct {
	t    *testing.T
	c    *websocket.Conn
	wmu  sync.Mutex
	msgs chan map[string]json.RawMessage
}

func dialRawPage(t *testing.T, ts *testServer) *rawPage {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(ts.wsURL, map[string][]string{"Origin": {testOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := &rawPage{t: t, c: c, msgs: make(chan map[string]json.RawMessage, 4096)}
	go func() {
		defer close(p.msgs)
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			switch string(m["method"]) {
			case `"initialize"`:
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"raw","version":"1"}}}`, m["id"], wire.ProtocolVersion))
			case `"tools/list"`:
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m["id"]))
			case `"ping"`:
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m["id"]))
			default:
				p.msgs <- m
			}
		}
	}()
	return p
}

func (p *rawPage) send(s string) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.c.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		p.t.Errorf("raw page: write: %v", err)
	}
}

// until reads messages until the response with id arrives and returns them all.
func (p *rawPage) until(id string) []map[string]json.RawMessage {
	p.t.Helper()
	var out []map[string]json.RawMessage
	timeout := time.After(waitLimit)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("raw page: socket closed waiting for response %s", id)
			}
			out = append(out, m)
			if string(m["id"]) == id && m["method"] == nil {
				return out
			}
		case <-timeout:
			p.t.Fatalf("raw page: no response %s", id)
		}
	}
}

// Defect #11: an agent/chat pipelined right after agent/session {} (sent without waiting for
// its answer) runs in the session that agent/session created, every time: the requests of
// one socket take effect in the order they were sent.
func TestChatPipelinedAfterSessionRunsInNewSession(t *testing.T) {
	ts := newTestServer(t, textModel("ok"), nil)
	page := dialRawPage(t, ts)
	page.send(`{"jsonrpc":"2.0","id":"s0","method":"agent/session","params":{}}`)
	page.until(`"s0"`)
	for i := range 50 {
		sid, cid := fmt.Sprintf(`"s%d"`, i+1), fmt.Sprintf(`"c%d"`, i+1)
		page.send(`{"jsonrpc":"2.0","id":` + sid + `,"method":"agent/session","params":{}}`)
		page.send(`{"jsonrpc":"2.0","id":` + cid + `,"method":"agent/chat","params":{"text":"hi"}}`)
		var session string
		var events int
		for _, m := range page.until(cid) {
			switch {
			case string(m["id"]) == sid:
				var res wire.SessionResult
				if err := json.Unmarshal(m["result"], &res); err != nil || res.SessionID == "" {
					t.Fatalf("round %d: agent/session answered %s %s", i, m["result"], m["error"])
				}
				session = res.SessionID
			case string(m["id"]) == cid:
				if m["error"] != nil {
					t.Fatalf("round %d: agent/chat answered %s", i, m["error"])
				}
			case string(m["method"]) == `"agent/event"`:
				var e event
				_ = json.Unmarshal(m["params"], &e)
				if session == "" || e.SessionID != session {
					t.Fatalf("round %d: %s event of session %q before or outside the new session %q", i, e.Type, shortID(e.SessionID), shortID(session))
				}
				events++
			}
		}
		if events == 0 {
			t.Fatalf("round %d: the turn sent no event", i)
		}
	}
}

// dialStatus opens the socket with the given Host and Origin headers and returns the HTTP
// status of the answer.
func dialStatus(t *testing.T, wsURL, host, origin string) int {
	t.Helper()
	h := map[string][]string{"Origin": {origin}}
	if host != "" {
		h["Host"] = []string{host}
	}
	c, resp, err := websocket.DefaultDialer.Dial(wsURL, h)
	if c != nil {
		c.Close()
	}
	if resp == nil {
		t.Fatalf("no HTTP response: %v", err)
	}
	return resp.StatusCode
}

// Defect #5 (DNS rebinding): the server's own origin came from the request's Host header, so
// a page on http://rebind.evil.test:PORT (a name made to resolve to 127.0.0.1) was allowed.
// Now the own origin comes from the listen address and the Host header itself is checked.
func TestHostHeaderRebindingRefused(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), nil)
	port := ts.http.URL[strings.LastIndexByte(ts.http.URL, ':')+1:]
	rebind := "rebind.evil.test:" + port
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{"rebinding host, its own origin", rebind, "http://" + rebind, 403},
		{"rebinding host, an allowed origin", rebind, testOrigin, 403},
		{"the listen address", "", ts.http.URL, 101},
		{"localhost by name", "localhost:" + port, "http://localhost:" + port, 101},
		{"an IP literal host", "127.0.0.1:" + port, testOrigin, 101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dialStatus(t, ts.wsURL, tt.host, tt.origin); got != tt.want {
				t.Errorf("Host %q, Origin %q: got HTTP %d, want %d", tt.host, tt.origin, got, tt.want)
			}
		})
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_refused_total{reason="host"}`: 2})
}

// --allowed-origins adds to the server's own origin (it used to replace it), and the own
// origin is the listen address's even then; the local development origins are dropped.
func TestAllowedOriginsAddToOwnOrigin(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) { c.AllowedOrigins = []string{"https://mine.example"} })
	port := ts.http.URL[strings.LastIndexByte(ts.http.URL, ':')+1:]
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"", ts.http.URL, 101},                                 // own origin, from the listen address
		{"localhost:" + port, "http://localhost:" + port, 101}, // its loopback name
		{"", "https://mine.example", 101},
		{"mine.example", "https://mine.example", 101}, // an allowed origin's host
		{"", "http://localhost:5173", 403},            // the development defaults are not kept
		{"rebind.evil.test:" + port, "https://mine.example", 403},
	} {
		if got := dialStatus(t, ts.wsURL, tt.host, tt.origin); got != tt.want {
			t.Errorf("Host %q, Origin %q: got HTTP %d, want %d", tt.host, tt.origin, got, tt.want)
		}
	}
}

// Config.OwnOrigins (serve's listen address or --public-url) is allowed and its host accepted.
func TestOwnOriginsConfigured(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) {
		c.OwnOrigins = []string{"https://agent.example"}
		c.AllowedOrigins = []string{"https://shop.example"}
	})
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"agent.example", "https://agent.example", 101},
		{"agent.example", "https://shop.example", 101},
		{"", "http://localhost:3000", 403},
		{"other.example", "https://shop.example", 403},
	} {
		if got := dialStatus(t, ts.wsURL, tt.host, tt.origin); got != tt.want {
			t.Errorf("Host %q, Origin %q: got HTTP %d, want %d", tt.host, tt.origin, got, tt.want)
		}
	}
	if _, err := NewServer(Config{Store: newTestStore(), Model: textModel(""), OwnOrigins: []string{"http://localhost:*"}}); err == nil {
		t.Errorf("own origin with a wildcard port: got no error, want one")
	}
}

// GET /v1/origin-check tells a page whether its origin may connect, readable from anywhere.
func TestOriginCheck(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) { c.AllowedOrigins = []string{"https://shop.example"} })
	h := ts.OriginCheckHandler()
	for _, tt := range []struct {
		origin, host string
		allowed      bool
		says         string
	}{
		{"https://shop.example", "", true, "allowed"},
		{"https://evil.example", "", false, "--allowed-origins https://evil.example"},
		{"https://evil.example", "", false, `"origins" in sites.json`},
		{"", "", false, "no Origin"},
		{"https://shop.example", "rebind.evil.test", false, "--public-url"},
	} {
		req := httptest.NewRequest(http.MethodGet, ts.http.URL+"/v1/origin-check", nil)
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, ts.http.Listener.Addr()))
		req.Host = ts.http.Listener.Addr().String()
		if tt.host != "" {
			req.Host = tt.host
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got OriginCheck
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("origin %q: body %q: %v", tt.origin, rec.Body, err)
		}
		if rec.Code != 200 || got.Allowed != tt.allowed || got.Origin != tt.origin || !strings.Contains(got.Message, tt.says) {
			t.Errorf("origin %q host %q: got %d %+v, want allowed %v, a message saying %q", tt.origin, tt.host, rec.Code, got, tt.allowed, tt.says)
		}
		for k, v := range map[string]string{"Content-Type": "application/json", "Access-Control-Allow-Origin": "*", "Cache-Control": "no-store"} {
			if rec.Header().Get(k) != v {
				t.Errorf("header %s: got %q, want %q", k, rec.Header().Get(k), v)
			}
		}
	}
}

// asRemoteClient serves ts's Server again with every request's RemoteAddr set to addr, as a
// visitor from another machine is seen, and returns a testServer whose pages dial that.
func asRemoteClient(t *testing.T, ts *testServer, addr string) *testServer {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = addr
		ts.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	remote := *ts
	remote.http = hs
	remote.wsURL = "ws" + strings.TrimPrefix(hs.URL, "http")
	return &remote
}

// Defect #7: model spend had no bound per client. Turns running at once are bounded per
// client address and in all; over it agent/chat gets -32030 and the refusal is counted.
func TestTurnBudgetPerClient(t *testing.T) {
	model := &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	local := newTestServer(t, model, func(c *Config) { c.ClientTurns = 1 })
	ts := asRemoteClient(t, local, "198.51.100.7:40000")
	a := newFakePage(t, ts, testOrigin)
	a.session(wire.SessionParams{})
	answer := make(chan error, 1)
	go func() {
		_, err := a.chat("first")
		answer <- err
	}()
	<-model.started
	b := newFakePage(t, ts, testOrigin) // another socket from the same address
	b.session(wire.SessionParams{})
	if _, err := b.chat("second"); !errors.Is(err, wsrpc.NewError(wire.CodeBusy, "")) {
		t.Errorf("a second turn from the same client: got %v, want -32030", err)
	}
	other := newFakePage(t, asRemoteClient(t, local, "198.51.100.8:40000"), testOrigin)
	other.session(wire.SessionParams{})
	loopback := newFakePage(t, local, testOrigin) // no client of its own: only the totals apply
	loopback.session(wire.SessionParams{})
	waiting := make(chan error, 2)
	for _, p := range []*fakePage{other, loopback} {
		go func() {
			_, err := p.chat("meanwhile")
			waiting <- err
		}()
	}
	close(model.gate)
	for range 2 {
		if err := <-waiting; err != nil {
			t.Errorf("a turn from another client or from loopback: %v", err)
		}
	}
	if err := <-answer; err != nil {
		t.Errorf("first turn: %v", err)
	}
	if res, err := b.chat("second again"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("after the first turn ended: got %+v, %v, want a turn", res, err)
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_refused_total{reason="budget"}`: 1})

	total := newTestServer(t, &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}, func(c *Config) { c.MaxTurns = 1 })
	release, err := total.Server.budget.StartTurn("") // one turn running elsewhere
	if err != nil {
		t.Fatal(err)
	}
	p := newFakePage(t, total, testOrigin)
	p.session(wire.SessionParams{})
	if _, err := p.chat("hi"); !errors.Is(err, wsrpc.NewError(wire.CodeBusy, "")) {
		t.Errorf("over the total: got %v, want -32030", err)
	}
	release()
}

// TestStartRunSharesTheTurnBudget: another endpoint's runs (AG-UI) take slots of the same
// budget as the socket's turns: per client address, and in all; a loopback address only in
// all; a released slot is free again.
func TestStartRunSharesTheTurnBudget(t *testing.T) {
	ts := newTestServer(t, &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}, func(c *Config) { c.ClientTurns, c.MaxTurns = 1, 2 })
	req := func(addr string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1/agui", nil)
		r.RemoteAddr = addr
		return r
	}
	release, err := ts.Server.StartRun(req("198.51.100.7:40000"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Server.StartRun(req("198.51.100.7:40001")); err != wire.ErrClientBusy {
		t.Errorf("a second run from the same address: %v, want wire.ErrClientBusy", err)
	}
	local, err := ts.Server.StartRun(req("127.0.0.1:40002"))
	if err != nil {
		t.Fatalf("a run from loopback (no client of its own): %v", err)
	}
	if _, err := ts.Server.StartRun(req("198.51.100.8:40000")); err != wire.ErrServerBusy {
		t.Errorf("a third run with --max-turns 2: %v, want wire.ErrServerBusy", err)
	}
	p := newFakePage(t, ts, testOrigin)
	p.session(wire.SessionParams{})
	if _, err := p.chat("hi"); !errors.Is(err, wsrpc.NewError(wire.CodeBusy, "")) {
		t.Errorf("a socket turn while two runs hold the total: got %v, want -32030", err)
	}
	release()
	local()
	if r, err := ts.Server.StartRun(req("198.51.100.7:40003")); err != nil {
		t.Errorf("after the slots were given back: %v", err)
	} else {
		r()
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_refused_total{reason="budget"}`: 3})
}

// TestNoSessionSwitchDuringOwnTurn: a page asking its socket for another session while a
// turn it started still runs is refused (-32001): the turn's events would stop reaching it
// and its agent/chat be answered without the turn_end promised before the result. The same
// session may be asked for again, and after the turn another one.
func TestNoSessionSwitchDuringOwnTurn(t *testing.T) {
	model := &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	ts := newTestServer(t, model, nil)
	p := newFakePage(t, ts, testOrigin)
	first := p.session(wire.SessionParams{})
	answer := make(chan error, 1)
	go func() {
		_, err := p.chat("first")
		answer <- err
	}()
	<-model.started
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	var res wire.SessionResult
	err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeTurnInProgress, "")) {
		t.Errorf("agent/session {} during the socket's turn: %+v %v, want -32001", res, err)
	}
	if err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: first.SessionID}, &res); err != nil || res.SessionID != first.SessionID {
		t.Errorf("agent/session for the same session during its turn: %+v %v, want it", res, err)
	}
	close(model.gate)
	if err := <-answer; err != nil {
		t.Fatal(err)
	}
	if err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, &res); err != nil || res.SessionID == first.SessionID {
		t.Errorf("agent/session {} after the turn: %+v %v, want a new session", res, err)
	}
}

// TestChatRefusedWhileShuttingDown: a turn asked for while the agent shuts down (its
// running turns get their grace) is refused as busy (-32030, documented and worth trying
// again: the page reconnects to another replica), not as an internal error.
func TestChatRefusedWhileShuttingDown(t *testing.T) {
	model := &gateModel{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	ts := newTestServer(t, model, nil)
	a := newFakePage(t, ts, testOrigin)
	a.session(wire.SessionParams{})
	first := make(chan error, 1)
	go func() {
		_, err := a.chat("first")
		first <- err
	}()
	<-model.started
	b := newFakePage(t, ts, testOrigin)
	b.session(wire.SessionParams{})
	stopped := make(chan error, 1)
	go func() { stopped <- ts.Server.Shutdown(context.Background()) }()
	waitFor(t, "Shutdown to start", func() bool { return isClosing(ts.Server) })
	_, err := b.chat("second")
	var rpcErr *wsrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeBusy || !strings.Contains(rpcErr.Message, "shutting down") {
		t.Errorf("agent/chat while shutting down: %v, want -32030 saying the agent is shutting down", err)
	}
	close(model.gate)
	<-first
	if err := <-stopped; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// Defect #7 (sessions): new sessions per client address are a token bucket; over it
// agent/session {} gets -32031, while resuming an existing session is not limited.
func TestSessionBudgetPerClient(t *testing.T) {
	local := newTestServer(t, textModel("hi"), func(c *Config) {
		c.ClientSessionBurst = 3
		c.ClientSessionRate = 1e-9
	})
	ts := asRemoteClient(t, local, "[2001:db8::7]:40000")
	p := newFakePage(t, ts, testOrigin)
	first := p.session(wire.SessionParams{})
	if _, err := p.chat("hi"); err != nil { // a used session, kept in the store
		t.Fatal(err)
	}
	p.session(wire.SessionParams{})
	p.session(wire.SessionParams{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, nil); !errors.Is(err, wsrpc.NewError(wire.CodeTooManySessions, "")) {
		t.Errorf("a fourth new session: got %v, want -32031", err)
	}
	if _, err := p.chat("hi"); err != nil { // the current session still works
		t.Errorf("chat in the current session: %v", err)
	}
	if res := p.session(wire.SessionParams{SessionID: first.SessionID}); res.SessionID != first.SessionID {
		t.Errorf("resume: got session %s, want %s", shortID(res.SessionID), shortID(first.SessionID))
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_refused_total{reason="sessions"}`: 1})
}

// appendPanicStore panics in the first Append while armed: a fault in a session's flusher.
type appendPanicStore struct {
	store.Store
	lock  sync.Mutex
	armed bool
}

func (s *appendPanicStore) Append(ctx context.Context, id string, b store.Batch) error {
	s.lock.Lock()
	armed := s.armed && len(b.Events) > 0
	if armed {
		s.armed = false
	}
	s.lock.Unlock()
	if armed {
		panic("store append bug")
	}
	return s.Store.Append(ctx, id, b)
}

// A panic in a session's flusher ends that turn with stopReason error (its agent/chat still
// answered) and the session's next turn works; the process goes on.
func TestFlusherPanicEndsOnlyThatTurn(t *testing.T) {
	var rec panicRecord
	st := &appendPanicStore{}
	ts := newTestServer(t, textModel("fine"), func(c *Config) {
		st.Store = c.Store
		c.Store = st
		c.OnPanic = rec.add
	})
	p := newFakePage(t, ts, testOrigin)
	p.session(wire.SessionParams{})
	if res, err := p.chat("first"); err != nil || res.StopReason != wire.StopEnd { // the session is stored
		t.Fatalf("first turn: got %+v, %v", res, err)
	}
	st.lock.Lock()
	st.armed = true
	st.lock.Unlock()
	res, err := p.chat("second")
	if err != nil || res.StopReason != wire.StopError {
		t.Errorf("turn whose flusher panics: got %+v, %v, want stopReason error", res, err)
	}
	if got := rec.got(); !slices.Equal(got, []string{"flusher"}) {
		t.Errorf("OnPanic: got %v, want [flusher]", got)
	}
	if res, err := p.chat("third"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("the next turn: got %+v, %v, want stopReason end", res, err)
	}
	wantMetrics(t, ts.Server, map[string]float64{`byomcp_panics_total{where="flusher"}`: 1})
}

// Defect #8: a socket that starts a fragmented message (a frame with FIN=0) and then only
// answers pings was held forever. The message must end within Config.MessageTimeout: the
// socket is closed with 1008 and the refusal counted; another socket is unaffected.
func TestUnfinishedMessageClosesSocket(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) {
		c.MessageTimeout = 300 * time.Millisecond
		c.PingInterval = 30 * time.Millisecond
	})
	canary := newFakePage(t, ts, testOrigin)
	canary.session(wire.SessionParams{})
	c, _, err := websocket.DefaultDialer.Dial(ts.wsURL, map[string][]string{"Origin": {testOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pings := 0
	c.SetPingHandler(func(data string) error {
		pings++
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	payload := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 40))
	if len(payload) > 125 {
		t.Fatalf("payload of %d bytes: the frame below has a 7-bit length", len(payload))
	}
	frame := []byte{0x01, 0x80 | byte(len(payload))} // text, FIN=0, masked, 7-bit length
	key := [4]byte{1, 2, 3, 4}
	frame = append(frame, key[:]...)
	for i, b := range payload {
		frame = append(frame, b^key[i%4])
	}
	if _, err := c.NetConn().Write(frame); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(waitLimit))
	var ce *websocket.CloseError
	for {
		_, _, err := c.ReadMessage() // the agent's initialize, then the close
		if err != nil {
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a close frame", err)
			}
			break
		}
	}
	if ce.Code != websocket.ClosePolicyViolation {
		t.Errorf("close code: got %d, want 1008", ce.Code)
	}
	if pings == 0 {
		t.Errorf("no ping came while the message was unfinished; the test must answer pings")
	}
	waitMetric(t, ts.Server, `byomcp_refused_total{reason="message_timeout"}`, 1)
	if res, err := canary.chat("still there?"); err != nil || res.StopReason != wire.StopEnd {
		t.Errorf("canary: got %+v, %v", res, err)
	}
}
