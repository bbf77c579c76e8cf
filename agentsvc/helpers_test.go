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
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// testOrigin is the origin fake pages send.
const testOrigin = "http://localhost:3000"

// waitLimit bounds every wait in these tests; a test that hits it has failed.
const waitLimit = 10 * time.Second

// advance lets d pass on the fake clock of the synctest bubble it is called in: a sleep
// there returns once every goroutine of the bubble is blocked and the clock has moved by d,
// at no cost in real time. Call it only inside synctest.Test (outside, it would wait for real).
func advance(d time.Duration) { time.Sleep(d) }

// testServer runs a Server on a real loopback socket.
type testServer struct {
	*Server
	http  *httptest.Server
	wsURL string
	store store.Store
}

func newTestServer(t *testing.T, model llm.Model, mod func(*Config)) *testServer {
	t.Helper()
	st := newTestStore()
	cfg := Config{Store: st, Model: model, Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t)}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	})
	return &testServer{Server: srv, http: hs, wsURL: "ws" + strings.TrimPrefix(hs.URL, "http"), store: cfg.Store}
}

// failOnPanic is the Config.OnPanic of tests: containment must never hide a bug, so any
// recovered panic fails the test (tests of the containment itself replace it).
func failOnPanic(t testing.TB) func(string, any) {
	return func(where string, v any) { t.Errorf("recovered a panic in %s: %v", where, v) }
}

// openAIModel points the real openai-go client at a scripted fake server.
func openAIModel(t *testing.T, opts ...llmtest.Option) (*llm.OpenAI, *llmtest.Server) {
	t.Helper()
	fake := llmtest.New(opts...)
	t.Cleanup(fake.Close)
	m := llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "fake-model", Provider: "custom", MaxRetries: 2,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	return m, fake
}

// toolFunc is a fake page tool's handler.
type toolFunc func(ctx context.Context, args map[string]any) (any, error)

// fakePage is a page written against the wire protocol only: it answers the agent's MCP
// requests with its tools and records the events it gets.
type fakePage struct {
	t      *testing.T
	peer   *wsrpc.Peer
	lock   sync.Mutex
	tools  []wire.PageTool
	funcs  map[string]toolFunc
	calls  []wire.ToolsCallParams
	events chan json.RawMessage
	listed chan struct{}
	cancel chan wire.CancelledParams
	// pageSize > 0 paginates tools/list.
	pageSize int
	// version overrides the initialize answer.
	version string
	// confirm, when set, answers agent/confirm (a page without it has no such method).
	confirm func(ctx context.Context, p wire.ConfirmParams) (any, error)
	// elicit, when set, answers agent/elicit (a page without it has no such method).
	elicit func(ctx context.Context, p wire.ElicitParams) (any, error)
}

type pageTestTool struct {
	tool wire.PageTool
	fn   toolFunc
}

func newFakePage(t *testing.T, ts *testServer, origin string, tools ...pageTestTool) *fakePage {
	t.Helper()
	return newFakePageWith(t, ts, origin, func(*fakePage) {}, tools...)
}

func newTestStore() store.Store { return store.NewMemory() }

func (p *fakePage) connect(ts *testServer, origin string) {
	t := p.t
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	h := http.Header{}
	h.Set("Origin", origin)
	mc, _, err := wsrpc.Dial(ctx, ts.wsURL, h, wsrpc.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	peer := wsrpc.NewPeer(mc, wsrpc.Options{Logger: zaptest.NewLogger(t).Named("page"), PingInterval: -1})
	peer.Handle(wire.MethodInitialize, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var ip wire.InitializeParams
		_ = json.Unmarshal(req.Params, &ip)
		v := ip.ProtocolVersion
		if p.version != "" {
			v = p.version
		}
		return wire.InitializeResult{ProtocolVersion: v, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "fake-page", Version: "1"}}, nil
	})
	peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	peer.Handle(wire.MethodToolsList, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var lp wire.ToolsListParams
		_ = json.Unmarshal(req.Params, &lp)
		p.lock.Lock()
		all := append([]wire.PageTool(nil), p.tools...)
		size := p.pageSize
		p.lock.Unlock()
		defer func() { p.listed <- struct{}{} }()
		if size <= 0 {
			return wire.ToolsListResult{Tools: all}, nil
		}
		start := 0
		if lp.Cursor != "" {
			_ = json.Unmarshal([]byte(lp.Cursor), &start)
		}
		end := min(start+size, len(all))
		res := wire.ToolsListResult{Tools: all[start:end]}
		if end < len(all) {
			res.NextCursor = jsonString(end)
		}
		return res, nil
	})
	peer.Handle(wire.MethodToolsCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var cp wire.ToolsCallParams
		if err := json.Unmarshal(req.Params, &cp); err != nil {
			return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, err.Error())
		}
		p.lock.Lock()
		p.calls = append(p.calls, cp)
		fn := p.funcs[cp.Name]
		p.lock.Unlock()
		if fn == nil {
			return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool"}}}, nil
		}
		var args map[string]any
		_ = json.Unmarshal(cp.Arguments, &args)
		v, err := fn(ctx, args)
		if err != nil {
			return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": err.Error()}}}, nil
		}
		if s, ok := v.(string); ok {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}, nil
		}
		return v, nil
	})
	if p.confirm != nil {
		peer.Handle(wire.MethodAgentConfirm, func(ctx context.Context, req *wsrpc.Request) (any, error) {
			var cp wire.ConfirmParams
			if err := json.Unmarshal(req.Params, &cp); err != nil {
				return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, err.Error())
			}
			return p.confirm(ctx, cp)
		})
	}
	if p.elicit != nil {
		peer.Handle(wire.MethodAgentElicit, func(ctx context.Context, req *wsrpc.Request) (any, error) {
			var ep wire.ElicitParams
			if err := json.Unmarshal(req.Params, &ep); err != nil {
				return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, err.Error())
			}
			return p.elicit(ctx, ep)
		})
	}
	peer.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) {
		select {
		case p.events <- append(json.RawMessage(nil), req.Params...):
		default:
			t.Errorf("fake page: event buffer full")
		}
	})
	peer.HandleNotification(wire.MethodCancelled, func(_ context.Context, req *wsrpc.Request) {
		var cp wire.CancelledParams
		_ = json.Unmarshal(req.Params, &cp)
		select {
		case p.cancel <- cp:
		default:
		}
	})
	p.peer = peer
	peer.Start()
	t.Cleanup(func() { peer.Close(nil) })
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitListed waits for the agent to list the page's tools n times in all.
func (p *fakePage) waitListed(n int) {
	p.t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-p.listed:
		case <-time.After(waitLimit):
			p.t.Fatalf("the agent did not list the tools (listing %d of %d)", i+1, n)
		}
	}
}

// waitTools waits until the server side of the only socket has n tools registered.
func (ts *testServer) waitTools(t *testing.T, n int) *pageConn {
	t.Helper()
	c := ts.connFor(t)
	waitFor(t, "the page's tools to be registered", func() bool { return len(c.mcp.Tools()) == n })
	return c
}

// session opens or resumes a session.
func (p *fakePage) session(params wire.SessionParams) wire.SessionResult {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res wire.SessionResult
	if err := p.peer.Call(ctx, wire.MethodAgentSession, params, &res); err != nil {
		p.t.Fatalf("agent/session: %v", err)
	}
	return res
}

// chat runs one turn.
func (p *fakePage) chat(text string) (wire.ChatResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res wire.ChatResult
	err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: text}, &res)
	return res, err
}

// event is a decoded agent/event.
type event struct {
	SessionID   string          `json:"sessionId"`
	TurnID      string          `json:"turnId"`
	Seq         int64           `json:"seq"`
	Type        string          `json:"type"`
	Delta       string          `json:"delta"`
	Name        string          `json:"name"`
	CallID      string          `json:"callId"`
	Arguments   json.RawMessage `json:"arguments"`
	IsError     bool            `json:"isError"`
	Text        string          `json:"text"`
	StopReason  string          `json:"stopReason"`
	Message     string          `json:"message"`
	Retryable   bool            `json:"retryable"`
	Reason      string          `json:"reason"`
	Interrupted bool            `json:"interrupted"`
	// Confirmation is a tool_result's record of how the visitor answered.
	Confirmation *wire.Confirmation `json:"confirmation"`
	// Asked is a tool_result's record of the server's questions to the visitor.
	Asked []wire.Asked `json:"asked"`
	// App is a tool_result's MCP App (apps.go).
	App *wire.App `json:"app"`
}

// nextEvent returns the next event the page got.
func (p *fakePage) nextEvent() event {
	p.t.Helper()
	select {
	case raw := <-p.events:
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			p.t.Fatalf("event %s: %v", raw, err)
		}
		return e
	case <-time.After(waitLimit):
		p.t.Fatal("no event arrived")
		return event{}
	}
}

// eventsUntil collects events up to and including the first of type typ.
func (p *fakePage) eventsUntil(typ string) []event {
	p.t.Helper()
	var out []event
	for i := 0; i < 10000; i++ {
		e := p.nextEvent()
		out = append(out, e)
		if e.Type == typ {
			return out
		}
	}
	p.t.Fatalf("no %s event in 10000 events", typ)
	return nil
}

// types lists event types, merging runs of text_delta into one entry.
func types(evs []event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == wire.EventTextDelta && len(out) > 0 && out[len(out)-1] == wire.EventTextDelta {
			continue
		}
		out = append(out, e.Type)
	}
	return out
}

func (p *fakePage) callsMade() []wire.ToolsCallParams {
	p.lock.Lock()
	defer p.lock.Unlock()
	return append([]wire.ToolsCallParams(nil), p.calls...)
}

// scriptModel is a Model that answers from a function of the request, for tests that are
// about the agent rather than the model client.
type scriptModel struct {
	lock  sync.Mutex
	reqs  []llm.Request
	reply func(n int, req llm.Request) (*llm.Response, error)
}

func (m *scriptModel) Name() string { return "script" }

func (m *scriptModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	m.lock.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.lock.Unlock()
	resp, err := m.reply(n, req)
	if err != nil {
		return nil, err
	}
	if onDelta != nil {
		for _, w := range strings.SplitAfter(resp.Text, " ") {
			onDelta(w)
		}
	}
	return resp, nil
}

func (m *scriptModel) requests() []llm.Request {
	m.lock.Lock()
	defer m.lock.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: args}
}

var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}`)

func echoTool() pageTestTool {
	return pageTestTool{
		tool: wire.PageTool{Name: "echo", Description: "Echo the text.", InputSchema: echoSchema},
		fn: func(_ context.Context, args map[string]any) (any, error) {
			return "echo: " + args["text"].(string), nil
		},
	}
}

// answered tells whether a page tool call got the page's answer, or the validator's: the
// outcomes that are data for the model, not a failure of the call.
func answered(out tools.Outcome) bool {
	return out.Kind == tools.OK || out.Kind == tools.ToolError || out.Kind == tools.InvalidArgs
}

// waitSentBack waits for p's socket to be closed with 4000 (resume elsewhere): what a page
// gets instead of an attach over events it lacks.
func (p *fakePage) waitSentBack() {
	p.t.Helper()
	select {
	case <-p.peer.Done():
	case <-time.After(waitLimit):
		p.t.Fatal("the socket is still open: attached without the events it lacks")
	}
	var ce *websocket.CloseError
	if err := p.peer.Wait(); !errors.As(err, &ce) || ce.Code != wire.CloseResume {
		p.t.Fatalf("the socket ended with %v, want close code %d", err, wire.CloseResume)
	}
}
