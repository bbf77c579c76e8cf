package agui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

const site = "http://site.test"

// waitLimit bounds every wait of these tests (never asserted as a duration).
const waitLimit = 15 * time.Second

type fixture struct {
	h     *Handler
	srv   *httptest.Server
	fake  *llmtest.Server
	store store.Store
}

func newFixture(t *testing.T, st store.Store, st2 mcpservers.ServerTools, opts ...llmtest.Option) *fixture {
	t.Helper()
	return newFixtureWith(t, st, st2, nil, opts...)
}

// newFixtureWith is newFixture with edit applied to the handler's Options (nil: none).
func newFixtureWith(t *testing.T, st store.Store, st2 mcpservers.ServerTools, edit func(*Options), opts ...llmtest.Option) *fixture {
	t.Helper()
	fake := llmtest.New(opts...)
	t.Cleanup(fake.Close)
	model := llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "fake-model", Provider: "custom", MaxRetries: 1,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if st == nil {
		st = store.NewMemory()
		t.Cleanup(func() { _ = st.Close() })
	}
	o := Options{
		Model:         model,
		Store:         st,
		ServerTools:   st2,
		OriginAllowed: func(origin string, _ *http.Request) bool { return origin == site },
		Logger:        zaptest.NewLogger(t),
		Meter:         failOnPanic{t},
	}
	if edit != nil {
		edit(&o)
	}
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fromVisitor(h))
	t.Cleanup(srv.Close)
	return &fixture{h: h, srv: srv, fake: fake, store: st}
}

// visitorAddr is the client address of the fixtures' requests: a browser on another
// machine, counted by the per-address limits (a loopback address is not).
const visitorAddr = "192.0.2.10"

// fromVisitor serves h as if every request came from visitorAddr.
func fromVisitor(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = net.JoinHostPort(visitorAddr, "40000")
		h.ServeHTTP(w, r)
	})
}

// failOnPanic is a Meter that fails the test on any recovered panic: containment must never
// hide a bug.
type failOnPanic struct{ t *testing.T }

func (failOnPanic) CountRefused(string)                           {}
func (failOnPanic) CountTurn(string)                              {}
func (failOnPanic) ObserveToolCall(string, string, time.Duration) {}
func (m failOnPanic) CountPanic(where string, v any) {
	m.t.Errorf("recovered panic in %s: %v", where, v)
}

// panicMeter records the panics a run recovered.
type panicMeter struct {
	failOnPanic
	mu    sync.Mutex
	where []string
}

func (m *panicMeter) CountPanic(where string, _ any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.where = append(m.where, where)
}

// panicModel is a model whose stream panics: a bug in a provider's client.
type panicModel struct{}

func (panicModel) Name() string { return "panics" }
func (panicModel) Stream(context.Context, llm.Request, func(string)) (*llm.Response, error) {
	panic("boom in the model stream")
}

// TestPanicEndsOnlyThatRun: a model stream that panics ends its run with RUN_ERROR, counted
// as a panic; the thread is free again and the handler goes on serving.
func TestPanicEndsOnlyThatRun(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "fine"}))
	meter := &panicMeter{failOnPanic: failOnPanic{t}}
	h, err := New(Options{Model: panicModel{}, Store: f.store, Meter: meter, Logger: zaptest.NewLogger(t),
		OriginAllowed: func(origin string, _ *http.Request) bool { return origin == site }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	bad := &fixture{h: h, srv: srv, fake: f.fake, store: f.store}
	status, evs := bad.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-p", RunID: "run-1", Messages: []Message{user("u1", "hi")}})
	if status != http.StatusOK || len(evs) == 0 || evs[len(evs)-1].typ() != EventRunError {
		t.Fatalf("status %d, events %v; want a stream ending with RUN_ERROR", status, types(evs))
	}
	meter.mu.Lock()
	where := slices.Clone(meter.where)
	meter.mu.Unlock()
	if len(where) != 1 || !strings.HasPrefix(where[0], "agui_") {
		t.Errorf("panics counted %v, want one agui_… panic", where)
	}
	// The same thread runs again (here on a handler whose model works): nothing was left locked.
	status, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-p", RunID: "run-2", Messages: []Message{user("u2", "again")}})
	if status != http.StatusOK || evs[len(evs)-1].typ() != EventRunFinished {
		t.Errorf("second run: status %d, events %v; want RUN_FINISHED", status, types(evs))
	}
}

// event is a received AG-UI event, decoded loosely.
type event map[string]any

func (e event) typ() string { s, _ := e["type"].(string); return s }
func (e event) str(k string) string {
	s, _ := e[k].(string)
	return s
}

// run posts a RunAgentInput and reads the whole event stream.
func (f *fixture) run(t *testing.T, ctx context.Context, origin string, in RunAgentInput) (int, []event) {
	t.Helper()
	body, _ := json.Marshal(in)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	return resp.StatusCode, readEvents(t, bufio.NewReader(resp.Body), nil)
}

// readEvents parses server-sent events until the body ends; each event goes to each too.
func readEvents(t *testing.T, r *bufio.Reader, each func(event)) []event {
	t.Helper()
	var out []event
	var data []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "data: "):
			data = append(data, line[len("data: "):])
		case line == "" && len(data) > 0:
			var e event
			if jerr := json.Unmarshal([]byte(strings.Join(data, "\n")), &e); jerr != nil {
				t.Errorf("event %q is not JSON: %v", data, jerr)
			}
			data = nil
			out = append(out, e)
			if each != nil {
				each(e)
			}
		}
		if err != nil {
			return out
		}
	}
}

// types lists the events' types, a run of TEXT_MESSAGE_CONTENT (and of the other types
// given) as one.
func types(evs []event, merged ...string) []string {
	var out []string
	for _, e := range evs {
		t := e.typ()
		if len(out) == 0 || out[len(out)-1] != t || t != EventTextMessageContent && !slices.Contains(merged, t) {
			out = append(out, t)
		}
	}
	return out
}

func user(id, text string) Message {
	return Message{ID: id, Role: RoleUser, Content: stringContent(text)}
}

var colorTool = Tool{Name: "set_color", Description: "Sets the header color.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["red","green","blue"]}},"required":["color"],"additionalProperties":false}`)}

func TestStreamedTextRun(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "Hello there from the agent."}))
	status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-1", RunID: "run-1", Messages: []Message{user("u1", "hi")}})
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200", status)
	}
	want := []string{EventRunStarted, EventTextMessageStart, EventTextMessageContent, EventTextMessageEnd, EventRunFinished}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if evs[0].str("threadId") != "th-1" || evs[0].str("runId") != "run-1" || evs[0].str("protocolVersion") != "1.0" {
		t.Errorf("RUN_STARTED %v, want threadId th-1, runId run-1 and protocolVersion 1.0 (the producer declares its own)", evs[0])
	}
	var text strings.Builder
	msgID := evs[1].str("messageId")
	contents := 0
	for _, e := range evs {
		if e.typ() == EventTextMessageContent {
			contents++
			text.WriteString(e.str("delta"))
			if e.str("messageId") != msgID {
				t.Errorf("content of message %q inside message %q", e.str("messageId"), msgID)
			}
		}
	}
	if contents < 2 || text.String() != "Hello there from the agent." {
		t.Errorf("got %d deltas %q, want the text streamed in several", contents, text.String())
	}
	// The thread keeps the ids the client knows.
	s, err := f.store.Load(t.Context(), threadKey(site, "th-1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) != 2 || s.Messages[0].ID != "u1" || s.Messages[1].ID != msgID || s.ActiveTurn != "" {
		t.Errorf("stored %+v (active %q), want u1 and %s, no active run", s.Messages, s.ActiveTurn, msgID)
	}
}

func TestFrontendToolOverTwoRuns(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call-1", Name: "set_color", Args: `{"color":"red"}`}}},
		llmtest.Step{Text: "The header is red."},
	))
	in := RunAgentInput{ThreadID: "th-2", RunID: "run-1", Messages: []Message{user("u1", "red header")}, Tools: []Tool{colorTool}}
	_, evs := f.run(t, t.Context(), site, in)
	want := []string{EventRunStarted, EventToolCallStart, EventToolCallArgs, EventToolCallEnd, EventRunFinished}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("run 1 events %v, want %v", got, want)
	}
	if evs[1].str("toolCallName") != "set_color" || evs[2].str("delta") != `{"color":"red"}` {
		t.Errorf("tool call %v %v, want set_color with {\"color\":\"red\"}", evs[1], evs[2])
	}
	outcome, _ := evs[4]["outcome"].(map[string]any)
	if pending, _ := outcome["pendingToolCallIds"].([]any); outcome["type"] != "success" || len(pending) != 1 || pending[0] != "call-1" {
		t.Errorf("RUN_FINISHED outcome %v, want success pending call-1", outcome)
	}
	if n := len(f.fake.Requests()); n != 1 {
		t.Fatalf("model calls %d after run 1, want 1 (the run ends at the frontend call)", n)
	}
	if tools := f.fake.Requests()[0].Tools; len(tools) != 1 || tools[0].Name != "set_color" {
		t.Errorf("offered %v, want set_color", tools)
	}

	// The client ran the tool and sends its whole history with the result.
	asst := Message{ID: evs[1].str("parentMessageId"), Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call-1", Type: "function", Function: FunctionCall{Name: "set_color", Arguments: `{"color":"red"}`}}}}
	in.RunID = "run-2"
	in.Messages = []Message{user("u1", "red header"), asst, {ID: "t1", Role: RoleTool, ToolCallID: "call-1", Content: stringContent("header is red now")}}
	_, evs = f.run(t, t.Context(), site, in)
	want = []string{EventRunStarted, EventTextMessageStart, EventTextMessageContent, EventTextMessageEnd, EventRunFinished}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("run 2 events %v, want %v (no snapshot: the histories match)", got, want)
	}
	req := f.fake.Requests()[1]
	last := req.LastMessage()
	if last.Role != "tool" || last.ToolCallID != "call-1" || !strings.Contains(last.Content, "header is red now") {
		t.Errorf("the model's last message %+v, want the client's tool result", last)
	}
}

func TestInvalidFrontendArgumentsCorrected(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "bad", Name: "set_color", Args: `{"color":"purple"}`}}},
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "good", Name: "set_color", Args: `{"color":"blue"}`}}},
	))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-3", RunID: "r", Messages: []Message{user("u1", "purple")}, Tools: []Tool{colorTool}})
	var starts []string
	for _, e := range evs {
		if e.typ() == EventToolCallStart {
			starts = append(starts, e.str("toolCallId"))
		}
	}
	if !slices.Equal(starts, []string{"good"}) {
		t.Errorf("calls shown to the client %v, want only the valid one", starts)
	}
	reqs := f.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls %d, want 2", len(reqs))
	}
	if last := reqs[1].LastMessage(); last.Role != "tool" || last.ToolCallID != "bad" || !strings.Contains(last.Content, "invalid arguments") {
		t.Errorf("the model got %+v, want the validation error for call bad", last)
	}
	// The refused call stays out of the client's view of the thread.
	s, _ := f.store.Load(t.Context(), threadKey(site, "th-3"))
	for _, m := range toAGUI(s.Messages) {
		for _, tc := range m.ToolCalls {
			if tc.ID == "bad" {
				t.Errorf("the client's view holds the refused call: %+v", m)
			}
		}
	}
}

// httpMCPServer serves one tool over Streamable HTTP.
func httpMCPServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "stock-server", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "stock", Description: "Cars in stock.", InputSchema: json.RawMessage(`{"type":"object","properties":{"model":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3 in stock"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestServerToolWithResult(t *testing.T) {
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "shop", Transport: mcpservers.TransportStreamable, URL: httpMCPServer(t), Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil, mgr, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "shop__stock", Args: `{"model":"Roadster"}`}}},
		llmtest.Step{Text: "There are 3."},
	))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-4", RunID: "r", Messages: []Message{user("u1", "stock?")}, Tools: []Tool{colorTool}})
	want := []string{EventRunStarted, EventToolCallStart, EventToolCallArgs, EventToolCallEnd, EventToolCallResult,
		EventTextMessageStart, EventTextMessageContent, EventTextMessageEnd, EventRunFinished}
	if got := types(evs, EventToolCallArgs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// The fake model streams the arguments in 8-byte pieces: each is one TOOL_CALL_ARGS.
	var args []string
	for _, e := range evs {
		if e.typ() == EventToolCallArgs {
			if e.str("toolCallId") != "c1" {
				t.Errorf("TOOL_CALL_ARGS %v, want call c1", e)
			}
			args = append(args, e.str("delta"))
		}
	}
	if len(args) < 2 || strings.Join(args, "") != `{"model":"Roadster"}` {
		t.Errorf("arguments streamed as %q, want several deltas joining to {\"model\":\"Roadster\"}", args)
	}
	res := evs[slices.IndexFunc(evs, func(e event) bool { return e.typ() == EventToolCallResult })]
	if res.str("toolCallId") != "c1" || res.str("role") != "tool" || res.str("content") != "3 in stock" || res.str("messageId") == "" {
		t.Errorf("TOOL_CALL_RESULT %v, want c1's result 3 in stock", res)
	}
	var offered []string
	for _, tl := range f.fake.Requests()[0].Tools {
		offered = append(offered, tl.Name)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []string{"set_color", "shop__stock"}) {
		t.Errorf("offered %v, want the server's web tool and the client's", offered)
	}
}

func TestDisconnectCancelsRun(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(
		llmtest.Step{Text: "one two three four five six", FailAfterTokens: 2, Stall: true},
		llmtest.Step{Text: "Back again."},
	))
	ctx, cancel := context.WithCancel(t.Context())
	body, _ := json.Marshal(RunAgentInput{ThreadID: "th-5", RunID: "r1", Messages: []Message{user("u1", "talk")}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, bytes.NewReader(body))
	req.Header.Set("Origin", site)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	got := make(chan struct{})
	go readEvents(t, r, func(e event) {
		if e.typ() == EventTextMessageContent {
			select {
			case <-got:
			default:
				close(got)
			}
		}
	})
	select {
	case <-got:
	case <-time.After(waitLimit):
		t.Fatal("no text before the stall")
	}
	cancel() // the client goes away mid-run
	resp.Body.Close()
	// The run ends: its partial answer is stored, the thread is free, no run is left active.
	deadline := time.Now().Add(waitLimit)
	for {
		s, err := f.store.Load(t.Context(), threadKey(site, "th-5"))
		f.h.mu.Lock()
		busy := len(f.h.threads)
		f.h.mu.Unlock()
		if err == nil && s.ActiveTurn == "" && busy == 0 && len(s.Messages) == 2 {
			if s.Messages[1].Role != "assistant" || !strings.HasPrefix(s.Messages[1].Content, "one") {
				t.Errorf("stored %+v, want the partial answer", s.Messages[1])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end after the client left (active %q, busy %d)", s.ActiveTurn, busy)
		}
		time.Sleep(10 * time.Millisecond)
	}
	status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-5", RunID: "r2", Messages: []Message{user("u2", "again")}})
	if status != http.StatusOK || evs[len(evs)-1].typ() != EventRunFinished {
		t.Fatalf("next run: status %d, events %v", status, types(evs))
	}
}

func TestOneRunPerThread(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "a b c", FailAfterTokens: 1, Stall: true}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body, _ := json.Marshal(RunAgentInput{ThreadID: "th-6", RunID: "r1", Messages: []Message{user("u1", "x")}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, bytes.NewReader(body))
	req.Header.Set("Origin", site)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make(chan struct{})
	go readEvents(t, bufio.NewReader(resp.Body), func(e event) {
		if e.typ() == EventRunStarted {
			close(first)
		}
	})
	<-first
	status, _ := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-6", RunID: "r2", Messages: []Message{user("u2", "y")}})
	if status != http.StatusConflict {
		t.Errorf("a second run on a busy thread: status %d, want 409", status)
	}
}

func TestThreadResumedAfterRestartOnSQLite(t *testing.T) {
	path := "sqlite:" + filepath.Join(t.TempDir(), "threads.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, st, nil, llmtest.Script(llmtest.Step{Text: "Nice to meet you, Ada."}))
	f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-7", RunID: "r1", Messages: []Message{user("u1", "I am Ada")}})
	f.srv.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	f2 := newFixture(t, st2, nil, llmtest.Script(llmtest.Step{Text: "You are Ada."}))
	// A client that sends only its new message.
	_, evs := f2.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-7", RunID: "r2", Messages: []Message{user("u2", "who am I?")}})
	if len(evs) < 2 || evs[1].typ() != EventMessagesSnapshot {
		t.Fatalf("events %v, want a MESSAGES_SNAPSHOT after RUN_STARTED", types(evs))
	}
	msgs, _ := evs[1]["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if !slices.Equal(roles, []string{"user", "assistant", "user"}) || msgs[0].(map[string]any)["id"] != "u1" {
		t.Errorf("snapshot %v, want u1, the answer and u2", msgs)
	}
	var sent []string
	for _, m := range f2.fake.Requests()[0].Messages {
		sent = append(sent, m.Role+":"+m.Content)
	}
	for _, want := range []string{"user:I am Ada", "assistant:Nice to meet you, Ada.", "user:who am I?"} {
		if !slices.Contains(sent, want) {
			t.Errorf("the model got %q, want %q in it", sent, want)
		}
	}
	// The same client, now in step, gets no snapshot.
	f2.fake.Close()
	_, evs = f2.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-7", RunID: "r3", Messages: snapshotMessages(t, f2, "th-7")})
	if got := types(evs); !slices.Equal(got, []string{EventRunStarted, EventRunFinished}) {
		t.Errorf("a run with nothing new: %v, want RUN_STARTED and RUN_FINISHED without a model call", got)
	}
}

// TestSnapshotWhenTheThreadLeavesOutClientMessages: a new thread whose input holds an
// assistant message of the client's own and a tool message answering it stores neither
// (the assistant's messages are the agent's), so the client's history differs from the
// thread at once: the run sends the snapshot, as it does when a stored thread differs.
func TestSnapshotWhenTheThreadLeavesOutClientMessages(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "Hello."}))
	in := []Message{
		user("du1", "hi"),
		{ID: "da1", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "ghost", Type: "function", Function: FunctionCall{Name: "set_color", Arguments: `{"color":"red"}`}}}},
		{ID: "dt1", Role: RoleTool, ToolCallID: "ghost", Content: stringContent("done")},
		user("du2", "and now?"),
	}
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-ghost", RunID: "r1", Messages: in})
	if len(evs) < 2 || evs[1].typ() != EventMessagesSnapshot {
		t.Fatalf("events %v, want a MESSAGES_SNAPSHOT after RUN_STARTED", types(evs))
	}
	var ids []string
	for _, m := range evs[1]["messages"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	if !slices.Equal(ids, []string{"du1", "du2"}) {
		t.Errorf("snapshot ids %v, want du1 and du2 (what the thread holds)", ids)
	}
	// In step with the thread afterwards: no snapshot.
	f.fake.Close()
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-ghost", RunID: "r2", Messages: snapshotMessages(t, f, "th-ghost")})
	if got := types(evs); !slices.Equal(got, []string{EventRunStarted, EventRunFinished}) {
		t.Errorf("a run in step with the thread: %v, want RUN_STARTED and RUN_FINISHED", got)
	}
}

// snapshotMessages is the client's view of a stored thread.
func snapshotMessages(t *testing.T, f *fixture, threadID string) []Message {
	t.Helper()
	s, err := f.store.Load(t.Context(), threadKey(site, threadID))
	if err != nil {
		t.Fatal(err)
	}
	return toAGUI(s.Messages)
}

func TestRefusedOrigins(t *testing.T) {
	f := newFixture(t, nil, nil)
	for _, origin := range []string{"https://evil.example", "", "null"} {
		status, _ := f.run(t, t.Context(), origin, RunAgentInput{ThreadID: "th-8", RunID: "r", Messages: []Message{user("u1", "hi")}})
		if status != http.StatusForbidden {
			t.Errorf("Origin %q: status %d, want 403", origin, status)
		}
	}
	if n := len(f.fake.Requests()); n != 0 {
		t.Errorf("model calls %d, want 0", n)
	}
	for _, tc := range []struct {
		origin string
		status int
		allow  string
	}{{site, http.StatusNoContent, site}, {"https://evil.example", http.StatusForbidden, ""}} {
		req, _ := http.NewRequest(http.MethodOptions, f.srv.URL, nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, authorization")
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Access-Control-Allow-Origin") != tc.allow {
			t.Errorf("preflight from %s: %d allow-origin %q, want %d %q", tc.origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tc.status, tc.allow)
		}
	}
}

// TestThreadsScopedByOrigin: a threadId first used by another allowed origin is not taken
// from its rightful origin (issue 36, item 5): each origin has its own thread of that id, and
// neither reads the other's messages.
func TestThreadsScopedByOrigin(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	const squatter = "https://other.test"
	f.h.o.OriginAllowed = func(origin string, _ *http.Request) bool { return origin == site || origin == squatter }
	status, _ := f.run(t, t.Context(), squatter, RunAgentInput{ThreadID: "th-9", RunID: "r1", Messages: []Message{user("u1", "squatter's secret")}})
	if status != http.StatusOK {
		t.Fatalf("the first origin on th-9: status %d, want 200", status)
	}
	status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-9", RunID: "r2", Messages: []Message{user("u2", "what did I say?")}})
	if status != http.StatusOK || evs[len(evs)-1].typ() != EventRunFinished {
		t.Fatalf("the rightful origin on th-9 after another: status %d, events %v; want 200 and a run", status, types(evs))
	}
	reqs := f.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls %d, want 2", len(reqs))
	}
	for _, m := range reqs[1].Messages {
		if strings.Contains(m.Content, "squatter") {
			t.Errorf("the rightful origin's run reads the other origin's message %q", m.Content)
		}
	}
	if got := snapshotMessages(t, f, "th-9"); len(got) != 2 || text(got[0].Content) != "what did I say?" {
		t.Errorf("the rightful origin's thread holds %+v, want its own message and the answer", got)
	}
	other, err := f.store.Load(t.Context(), threadKey(squatter, "th-9"))
	if err != nil || len(other.Messages) != 2 || other.Messages[0].Content != "squatter's secret" || other.Origin != squatter {
		t.Errorf("the other origin's thread: %v %+v, want its own two messages", err, other)
	}
	if threadKey(site, "th-9") == threadKey(squatter, "th-9") || threadKey("a", "b:c") == threadKey("a:b", "c") {
		t.Errorf("thread keys of different origins collide")
	}
}

func TestLimits(t *testing.T) {
	f := newFixture(t, nil, nil)
	long := strings.Repeat("a", 33<<10)
	if status, _ := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-10", RunID: "r", Messages: []Message{user("u1", long)}}); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 33 KiB message: status %d, want 413", status)
	}
	if status, _ := f.run(t, t.Context(), site, RunAgentInput{RunID: "r"}); status != http.StatusBadRequest {
		t.Errorf("no threadId: status %d, want 400", status)
	}
	// Runs per client address: over the burst, 429 (the bucket itself: internal/ratelimit).
	h, err := New(Options{Model: f.h.o.Model, Store: f.store, Meter: failOnPanic{t}, Logger: zaptest.NewLogger(t),
		RunRate: 0.001, RunBurst: 1, OriginAllowed: func(origin string, _ *http.Request) bool { return origin == site }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fromVisitor(h))
	t.Cleanup(srv.Close)
	limited := &fixture{h: h, srv: srv, fake: f.fake, store: f.store}
	in := RunAgentInput{ThreadID: "th-11", RunID: "r1", Messages: []Message{}}
	if status, _ := limited.run(t, t.Context(), site, in); status != http.StatusOK {
		t.Errorf("first run: status %d, want 200", status)
	}
	in.RunID = "r2"
	if status, _ := limited.run(t, t.Context(), site, in); status != http.StatusTooManyRequests {
		t.Errorf("second run at once over a burst of 1: status %d, want 429", status)
	}

	// A loopback address is no client of its own (a reverse proxy on the same host, behind
	// which every visitor would share one bucket): the same limit does not apply to it.
	local := httptest.NewServer(h)
	t.Cleanup(local.Close)
	proxied := &fixture{h: h, srv: local, fake: f.fake, store: f.store}
	for i := range 3 {
		in.RunID = fmt.Sprint("p", i)
		if status, _ := proxied.run(t, t.Context(), site, in); status != http.StatusOK {
			t.Errorf("run %d from a loopback address: status %d, want 200 (no per-address limit)", i, status)
		}
	}
}

// TestRunsTakeTurnSlots: a run that calls the model takes a slot of the agent's running
// turns (StartRun) for as long as it runs; over the bound, 429 for the client's own bound,
// 503 for the agent's, with Retry-After; a run with nothing new takes none.
func TestRunsTakeTurnSlots(t *testing.T) {
	var mu sync.Mutex
	var refuse error
	var held, released int
	var from []string
	startRun := func(r *http.Request) (func(), error) {
		mu.Lock()
		defer mu.Unlock()
		from = append(from, r.RemoteAddr)
		if refuse != nil {
			return nil, refuse
		}
		held++
		return func() { mu.Lock(); released++; mu.Unlock() }, nil
	}
	f := newFixtureWith(t, nil, nil, func(o *Options) { o.StartRun = startRun }, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	in := RunAgentInput{ThreadID: "th-slots", RunID: "r1", Messages: []Message{user("u1", "hi")}}
	if status, _ := f.run(t, t.Context(), site, in); status != http.StatusOK {
		t.Fatalf("first run: status %d, want 200", status)
	}
	mu.Lock()
	if held != 1 || released != 1 || len(from) != 1 || !strings.HasPrefix(from[0], visitorAddr+":") {
		t.Errorf("slots taken %d, given back %d, asked for %v; want one of %s, given back", held, released, from, visitorAddr)
	}
	mu.Unlock()
	for _, tc := range []struct {
		err    error
		status int
	}{{wire.ErrClientBusy, http.StatusTooManyRequests}, {wire.ErrServerBusy, http.StatusServiceUnavailable}} {
		mu.Lock()
		refuse = tc.err
		mu.Unlock()
		body, _ := json.Marshal(RunAgentInput{ThreadID: "th-slots", RunID: "r2", Messages: []Message{user("u2", "again")}})
		status, text, h := f.post(t, string(body))
		if status != tc.status || h.Get("Retry-After") == "" || !strings.Contains(text, "too many turns") {
			t.Errorf("over the bound (%v): %d %q Retry-After %q, want %d with the reason and Retry-After", tc.err, status, text, h.Get("Retry-After"), tc.status)
		}
	}
	// Nothing new: no model call, no slot asked for (a reloading front end is never refused).
	mu.Lock()
	asked := len(from)
	mu.Unlock()
	if status, _ := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-slots", RunID: "r3", Messages: snapshotMessages(t, f, "th-slots")}); status != http.StatusOK {
		t.Errorf("a run with nothing new while the agent is busy: status %d, want 200", status)
	}
	mu.Lock()
	if len(from) != asked {
		t.Errorf("a run with nothing new asked for a slot")
	}
	mu.Unlock()
}
