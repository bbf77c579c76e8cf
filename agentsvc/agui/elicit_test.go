package agui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// askerTools is a real MCP server (go-sdk, over Streamable HTTP) whose tools ask the user:
// book (a form, by elicitation/create during the call), pay (a URL to open), twice (two
// questions, one after the other), and, on a second, stateless server speaking MCP
// 2026-07-28, book (the multi-round-trip form: an input_required result, then the call
// again carrying the answer). The servers record each answer they received.
type askerTools struct {
	mgr  *mcpservers.Manager
	slow chan struct{} // closed: shop__slow returns
	// slowRunning is closed once a slow call reached its server; with bookAfterSlow set, book
	// waits for it before asking, so the two calls are surely both under way when it asks.
	slowRunning   chan struct{}
	slowOnce      sync.Once
	bookAfterSlow atomic.Bool
	mu            sync.Mutex
	got           []string // "<tool>:<action>:<content as JSON>" per answer received
}

func (a *askerTools) received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

func (a *askerTools) record(tool string, r *mcp.ElicitResult) {
	c, _ := json.Marshal(r.Content)
	a.mu.Lock()
	a.got = append(a.got, tool+":"+r.Action+":"+string(c))
	a.mu.Unlock()
}

var nameForm = map[string]any{
	"type": "object", "required": []string{"name"},
	"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name", "minLength": 1}},
}

func newAskerTools(t *testing.T) *askerTools {
	t.Helper()
	a := &askerTools{slow: make(chan struct{}), slowRunning: make(chan struct{})}
	booked := func(tool string, r *mcp.ElicitResult) *mcp.CallToolResult {
		a.record(tool, r)
		if r.Action != "accept" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not booked: " + r.Action}}}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("booked for %v", r.Content["name"])}}}
	}
	// The test's end stops the questions still waiting: a go-sdk server's Close waits for its
	// handlers, and a handler waiting for an answer from a client that is gone would wait on.
	ended, end := context.WithCancel(context.Background())
	elicit := func(ctx context.Context, req *mcp.CallToolRequest, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer context.AfterFunc(ended, cancel)()
		defer cancel()
		return req.Session.Elicit(ctx, p)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "book", Description: "Books a test drive.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a.bookAfterSlow.Load() {
				select {
				case <-a.slowRunning:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			r, err := elicit(ctx, req, &mcp.ElicitParams{Message: "Who is the booking for?", RequestedSchema: nameForm})
			if err != nil {
				return nil, err
			}
			return booked("book", r), nil
		})
	srv.AddTool(&mcp.Tool{Name: "pay", Description: "Pays the deposit.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := elicit(ctx, req, &mcp.ElicitParams{Mode: "url", Message: "Pay the deposit at your bank.", URL: "https://bank.example/pay/42", ElicitationID: "pay-42"})
			if err != nil {
				return nil, err
			}
			a.record("pay", r)
			if r.Action != "accept" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not paid: " + r.Action}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deposit paid"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "twice", Description: "Books, then asks for a confirmation.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := elicit(ctx, req, &mcp.ElicitParams{Message: "Who is the booking for?", RequestedSchema: nameForm})
			if err != nil {
				return nil, err
			}
			a.record("twice", r)
			r2, err := elicit(ctx, req, &mcp.ElicitParams{Message: "Send a reminder?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"remind": map[string]any{"type": "boolean"}}, "required": []string{"remind"}}})
			if err != nil {
				return nil, err
			}
			a.record("twice", r2)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("booked for %v, reminder %v", r.Content["name"], r2.Content["remind"])}}}, nil
		})
	slow := func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a.slowOnce.Do(func() { close(a.slowRunning) })
		select {
		case <-a.slow:
		case <-ctx.Done():
		case <-ended.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "slow", Description: "Takes its time.", InputSchema: json.RawMessage(`{"type":"object"}`)}, slow)
	mrtr := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "1"}, nil)
	mrtr.AddTool(&mcp.Tool{Name: "slow", Description: "Takes its time.", InputSchema: json.RawMessage(`{"type":"object"}`)}, slow)
	mrtr.AddTool(&mcp.Tool{Name: "book", Description: "Books a test drive.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult); ok {
				return booked("mrtr_book", r), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "Who is the booking for?", RequestedSchema: nameForm}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	hm := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mrtr }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hm.Close)
	t.Cleanup(end) // before the servers close
	a.mgr = mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "shop", Transport: mcpservers.TransportStreamable, URL: hs.URL, Expose: []string{mcpservers.AudienceWeb}},
		{Name: "mrtr", Transport: mcpservers.TransportStreamable, URL: hm.URL, Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp"), CallsAsk: true})
	t.Cleanup(a.mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := a.mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// askModel calls tool (id c1) until the conversation holds its result, then answers
// "Done: <the result>".
func askModel(tool string) llmtest.Option {
	return llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID == "c1" {
				body, _ := unwrap(m.Content)
				return llmtest.Step{Text: "Done: " + body}
			}
		}
		return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: tool, Args: `{}`}}}
	})
}

func askFixture(t *testing.T, st store.Store, a *askerTools, c *clock, tool string, edit func(*Options)) *fixture {
	t.Helper()
	f := newFixtureWith(t, st, a.mgr, func(o *Options) {
		if c != nil {
			o.Now = c.now
		}
		if edit != nil {
			edit(o)
		}
	}, askModel(tool))
	h := f.h
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	return f
}

// waitParked polls until the handler holds n parked calls.
func waitParked(t *testing.T, h *Handler, n int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for h.parked.len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d parked calls, want %d", h.parked.len(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestElicitationInterrupts: a server's question during an AG-UI run's tool call (form, URL,
// multi-round-trip) ends the run with the interrupt outcome, reason input_required, the
// form as responseSchema, while the call waits parked; the next run's resume answers it, the
// server gets the answer, and the model reads the tool's result. Every way of answering, or
// of not answering, as a table (issue 38, point 6).
func TestElicitationInterrupts(t *testing.T) {
	type want struct {
		status    int    // of the answering run
		body      string // in the refusal's body
		received  string // what the server received (joined), "" none
		modelRead string // in what the model read for c1 ("" = not answered)
		stillOpen bool   // the run ends with the same interrupt outcome again
		parked    int    // parked calls after the answering run
	}
	var cur *askerTools // the subtest's servers
	answer := func(payload string) func(*testing.T, *fixture, *clock, RunAgentInput) RunAgentInput {
		return func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			if payload != "" {
				in.Resume[0].Payload = json.RawMessage(payload)
			}
			return in
		}
	}
	cases := []struct {
		name   string
		tool   string
		answer func(t *testing.T, f *fixture, c *clock, in RunAgentInput) RunAgentInput
		want   want
	}{
		{"form answered", "shop__book", answer(`{"name":"Jane Doe"}`),
			want{status: 200, received: `book:accept:{"name":"Jane Doe"}`, modelRead: "booked for Jane Doe"}},
		{"form declined (resolved without a payload)", "shop__book", answer(""),
			want{status: 200, received: "book:decline:null", modelRead: "not booked: decline"}},
		{"cancelled", "shop__book", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Status = ResumeCancelled
			return in
		}, want{status: 200, received: "book:cancel:null", modelRead: "not booked: cancel"}},
		{"an answer that does not fit the form", "shop__book", answer(`{"name":""}`),
			want{status: 400, body: "does not match the question's responseSchema", parked: 1}},
		{"an answer that is no object", "shop__book", answer(`["Jane"]`),
			want{status: 400, body: "the payload must be an object", parked: 1}},
		{"expired", "shop__book", func(_ *testing.T, _ *fixture, c *clock, in RunAgentInput) RunAgentInput {
			c.advance(defaultInputTTL + time.Second)
			in.Resume[0].Payload = json.RawMessage(`{"name":"Jane Doe"}`)
			return in
		}, want{status: 200, modelRead: "did not answer the server's question before it expired at 2026-12-04T10:10:00Z"}},
		{"unknown to this replica (a restart)", "shop__book", func(t *testing.T, f *fixture, c *clock, in RunAgentInput) RunAgentInput {
			// Another handler on the same store: the thread's interrupt, not its parked call.
			*f = *askFixture(t, f.store, cur, c, "shop__book", nil)
			in.Resume[0].Payload = json.RawMessage(`{"name":"Jane Doe"}`)
			return in
		}, want{status: 200, modelRead: "no longer waiting for its answer", parked: 0}},
		{"no resume and a new message", "shop__book", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume = nil
			in.Messages = append(in.Messages, user("u2", "are you done?"))
			return in
		}, want{status: 200, stillOpen: true, parked: 1}},
		{"URL mode", "shop__pay", answer(`{}`),
			want{status: 200, received: "pay:accept:null", modelRead: "deposit paid"}},
		{"multi-round-trip (MCP 2026-07-28)", "mrtr__book", answer(`{"name":"Jane Doe"}`),
			want{status: 200, received: `mrtr_book:accept:{"name":"Jane Doe"}`, modelRead: "booked for Jane Doe"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAskerTools(t)
			cur = a
			c := newClock()
			f := askFixture(t, nil, a, c, tc.tool, nil)
			status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "book it")}})
			if status != 200 {
				t.Fatalf("status %d", status)
			}
			ins := interruptsIn(t, evs)
			if len(ins) != 1 {
				t.Fatalf("interrupts %+v, want one", ins)
			}
			in := ins[0]
			exp, err := time.Parse(time.RFC3339, in.ExpiresAt)
			if !strings.HasPrefix(in.ID, "int_") || len(in.ID) != 4+32 || in.Reason != "input_required" || in.ToolCallID != "c1" ||
				err != nil || !exp.Equal(c.now().Add(defaultInputTTL)) {
				t.Errorf("interrupt %+v, want an unguessable id, reason input_required, the call's id, expiry in 10 min", in)
			}
			var meta map[string]string
			_ = json.Unmarshal(in.Metadata, &meta)
			if tc.tool == "shop__pay" {
				if meta["mode"] != "url" || meta["url"] != "https://bank.example/pay/42" || !strings.Contains(in.Message, "https://bank.example/pay/42") {
					t.Errorf("interrupt %+v (metadata %v), want the URL in the message and the metadata", in, meta)
				}
			} else if meta["mode"] != "form" || !strings.Contains(string(in.ResponseSchema), `"name"`) || in.Message != "Who is the booking for?" {
				t.Errorf("interrupt %+v (metadata %v), want the server's form as responseSchema and its message", in, meta)
			}
			if resultOf(evs, "c1") != "" || !hasToolCall(evs, "c1") {
				t.Errorf("events %v: want the call shown without a result", types(evs))
			}
			if got := a.received(); len(got) != 0 {
				t.Errorf("the server received %v before the visitor answered", got)
			}
			waitParked(t, f.h, 1)
			requests := len(f.fake.Requests())

			next := tc.answer(t, f, c, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: snapshotMessages(t, f, "th"),
				Resume: []ResumeEntry{{InterruptID: in.ID, Status: ResumeResolved}}})
			status, body := f.postInput(t, next)
			if status != tc.want.status || !strings.Contains(body, tc.want.body) {
				t.Fatalf("status %d %q, want %d with %q", status, body, tc.want.status, tc.want.body)
			}
			if got := modelRead(f, "c1"); tc.want.modelRead == "" && got != "" || !strings.Contains(got, tc.want.modelRead) {
				t.Errorf("the model read %q for the call, want %q in it", got, tc.want.modelRead)
			}
			if got := strings.Join(a.received(), " | "); tc.want.received != "" && got != tc.want.received {
				t.Errorf("the server received %q, want %q", got, tc.want.received)
			}
			waitParked(t, f.h, tc.want.parked)
			if status != 200 {
				return
			}
			evs = readEvents(t, bufioReader(body), nil)
			if tc.want.stillOpen {
				again := interruptsIn(t, evs)
				if len(again) != 1 || again[0].ID != in.ID || again[0].ExpiresAt != in.ExpiresAt {
					t.Errorf("interrupts %+v, want the same open one again", again)
				}
				if n := len(f.fake.Requests()); n != requests {
					t.Errorf("the model was called %d times more while the question is open, want 0", n-requests)
				}
				// Answered later, the parked call goes on.
				status, body := f.postInput(t, RunAgentInput{ThreadID: "th", RunID: "r3", Messages: next.Messages,
					Resume: []ResumeEntry{{InterruptID: in.ID, Status: ResumeResolved, Payload: json.RawMessage(`{"name":"Ann"}`)}}})
				if status != 200 || textOf(readEvents(t, bufioReader(body), nil)) != "Done: booked for Ann" {
					t.Errorf("answered after the new message: %d %s", status, body)
				}
				everyCallAnswered(t, f, "th")
				return
			}
			if o := outcomeOf(evs); o != nil {
				t.Errorf("outcome %v, want none", o)
			}
			if r := resultOf(evs, "c1"); !strings.Contains(r, tc.want.modelRead) {
				t.Errorf("TOOL_CALL_RESULT %q, want %q in it", r, tc.want.modelRead)
			}
			if got := textOf(evs); !strings.HasPrefix(got, "Done: ") {
				t.Errorf("text %q, want the model's answer from the tool's result", got)
			}
			everyCallAnswered(t, f, "th")
			// Answered once.
			if status, body := f.postInput(t, next); status != http.StatusConflict {
				t.Errorf("the same answer again: %d %q, want 409", status, body)
			}
		})
	}
}

func hasToolCall(evs []event, id string) bool {
	for _, e := range evs {
		if e.typ() == EventToolCallStart && e.str("toolCallId") == id {
			return true
		}
	}
	return false
}

// TestElicitationAskedAgain: a resumed call whose server asks a second question ends the
// resuming run with a new interrupt (the call parked again, no result yet); the third run's
// answer gets the tool's result to the model.
func TestElicitationAskedAgain(t *testing.T) {
	a := newAskerTools(t)
	f := askFixture(t, nil, a, nil, "shop__twice", nil)
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "book it")}})
	first := interruptsIn(t, evs)[0]
	msgs := snapshotMessages(t, f, "th")
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: msgs,
		Resume: []ResumeEntry{{InterruptID: first.ID, Status: ResumeResolved, Payload: json.RawMessage(`{"name":"Jane"}`)}}})
	second := interruptsIn(t, evs)
	if len(second) != 1 || second[0].ID == first.ID || second[0].ToolCallID != "c1" || !strings.Contains(string(second[0].ResponseSchema), "remind") {
		t.Fatalf("interrupts %+v, want the second question of the same call", second)
	}
	if r := resultOf(evs, "c1"); r != "" {
		t.Errorf("a result %q while the call waits for its second answer", r)
	}
	waitParked(t, f.h, 1)
	status, body := f.postInput(t, RunAgentInput{ThreadID: "th", RunID: "r3", Messages: msgs,
		Resume: []ResumeEntry{{InterruptID: second[0].ID, Status: ResumeResolved, Payload: json.RawMessage(`{"remind":true}`)}}})
	if status != 200 || textOf(readEvents(t, bufioReader(body), nil)) != "Done: booked for Jane, reminder true" {
		t.Fatalf("status %d %s", status, body)
	}
	if got := modelRead(f, "c1"); !strings.Contains(got, "booked for Jane, reminder true") {
		t.Errorf("the model read %q", got)
	}
	everyCallAnswered(t, f, "th")
}

// TestParkedCallBounded: one parked call per thread, MaxParked in the process: past it a
// server's question is declined at once and the call goes on (the server hears decline).
// Shutdown ends the parked calls, their servers told cancel.
func TestParkedCallBounded(t *testing.T) {
	a := newAskerTools(t)
	f := askFixture(t, nil, a, nil, "shop__book", func(o *Options) { o.MaxParked = 1 })
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []Message{user("u1", "book it")}})
	interruptsIn(t, evs)
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "t2", RunID: "r1", Messages: []Message{user("u1", "book it")}})
	if o := outcomeOf(evs); o != nil {
		t.Errorf("outcome %v past the bound, want none (the question declined)", o)
	}
	if r := resultOf(evs, "c1"); r != "not booked: decline" {
		t.Errorf("result %q past the bound, want the server's answer to a decline", r)
	}
	if err := f.h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitParked(t, f.h, 0)
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(strings.Join(a.received(), " "), "book:cancel") {
		if time.Now().After(deadline) {
			t.Fatalf("the server received %v, want the parked call's question cancelled at shutdown", a.received())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestParkedCallRaces: the answer to a parked call races its expiry (a short InputTTL on
// the real clock), the thread's next run without an answer and, every third time, the
// process's shutdown, many times over with random delays, under -race. Invariants: no panic
// (failOnPanic), the server hears accept only when the model read the booking and the other
// way round, every call of the thread ends up answered or still open, and no parked call is
// left once the handler shuts down.
func TestParkedCallRaces(t *testing.T) {
	a := newAskerTools(t)
	const rounds = 30
	asked, booked := 0, 0
	for i := range rounds {
		ttl := time.Duration(rand.IntN(80)+1) * time.Millisecond
		f := askFixture(t, nil, a, nil, "shop__book", func(o *Options) { o.InputTTL = ttl })
		thread := fmt.Sprintf("race-%d", i)
		_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: thread, RunID: "r1", Messages: []Message{user("u1", "book it")}})
		o := outcomeOf(evs)
		if o == nil || o["type"] != "interrupt" {
			continue // expired before the run could even end asking: nothing parked
		}
		asked++
		in := interruptsIn(t, evs)[0]
		msgs := snapshotMessages(t, f, thread)
		name := fmt.Sprintf("Visitor %d", i)
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		wg.Go(func() {
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
			statuses[0], _ = f.postInput(t, RunAgentInput{ThreadID: thread, RunID: "r2", Messages: msgs,
				Resume: []ResumeEntry{{InterruptID: in.ID, Status: ResumeResolved, Payload: json.RawMessage(`{"name":"` + name + `"}`)}}})
		})
		wg.Go(func() {
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
			statuses[1], _ = f.postInput(t, RunAgentInput{ThreadID: thread, RunID: "r3", Messages: append(msgs, user("u2", "hello?"))})
		})
		shutDown := i%3 == 2 // every third round, the process shuts down meanwhile
		if shutDown {
			wg.Go(func() {
				time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
				_ = f.h.Shutdown(t.Context())
			})
		}
		wg.Wait()
		for j, s := range statuses {
			if s != 200 && s != http.StatusConflict && !(shutDown && s == http.StatusServiceUnavailable) {
				t.Errorf("round %d: run %d got %d, want 200, 409 (the thread busy) or 503 (shutting down)", i, j, s)
			}
		}
		read := modelRead(f, "c1")
		accepted := strings.Contains(strings.Join(a.received(), " "), `book:accept:{"name":"`+name+`"}`)
		if accepted {
			booked++
		}
		if strings.Contains(read, "booked for "+name) != accepted {
			t.Errorf("round %d: the model read %q, the server received %v: want accept heard exactly when the booking was read", i, read, a.received())
		}
		if read == "" && !shutDown { // not answered yet: the interrupt must still be open for the thread
			_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: thread, RunID: "r4", Messages: msgs})
			if o := outcomeOf(evs); o == nil || o["type"] != "interrupt" {
				t.Errorf("round %d: the call has no answer and the thread no open interrupt (outcome %v)", i, o)
			}
		}
		if err := f.h.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitParked(t, f.h, 0)
	}
	t.Logf("%d rounds: %d asked the visitor, %d answered in time", rounds, asked, booked)
	if asked == 0 {
		t.Errorf("no round ended with the question: nothing raced")
	}
}

// TestParkedCallsBoundedByDefault: with the default bound, maxParkedCalls threads each hold
// a parked call and the next thread's question is declined at once (its call goes on). It
// logs what the parked calls hold: goroutines of the process (the agent's and, here, the
// in-process test server's) and heap, per parked call.
func TestParkedCallsBoundedByDefault(t *testing.T) {
	a := newAskerTools(t)
	// The multi-round-trip server: its questions come with their call, so calls of many
	// threads may wait at once (elicitation/create during calls of two threads on one server
	// cannot be tied to either, and is declined: TestElicitationGoesToTheCallThatAsks).
	f := askFixture(t, nil, a, nil, "mrtr__book", func(o *Options) { o.RunRate, o.RunBurst = 1000, 1000 })
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	for i := range maxParkedCalls {
		_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: fmt.Sprintf("t%d", i), RunID: "r1", Messages: []Message{user("u1", "book it")}})
		if o := outcomeOf(evs); o == nil || o["type"] != "interrupt" {
			t.Fatalf("thread %d: outcome %v, want the interrupt (under the bound)", i, o)
		}
	}
	waitParked(t, f.h, maxParkedCalls)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d parked calls: %.1f goroutines and %d heap bytes each (agent and test server together)", maxParkedCalls,
		float64(runtime.NumGoroutine()-g0)/maxParkedCalls, (int64(after.HeapAlloc)-int64(before.HeapAlloc))/maxParkedCalls)
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "one-more", RunID: "r1", Messages: []Message{user("u1", "book it")}})
	if r := resultOf(evs, "c1"); r != "not booked: decline" || outcomeOf(evs) != nil {
		t.Errorf("past the bound: result %q, outcome %v; want the question declined and the run answered", r, outcomeOf(evs))
	}
}

// TestParkedCallEndsWithItsRun: a run cut short (its client gone) while another call of the
// same response still runs, after one call was parked, ends the parked call: its server
// hears cancel, nothing stays parked, and the thread's next run finds every call answered.
func TestParkedCallEndsWithItsRun(t *testing.T) {
	a := newAskerTools(t)
	f := newFixtureWith(t, nil, a.mgr, nil, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.Messages[len(req.Messages)-1].Role == "user" {
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "shop__book", Args: `{}`}, {ID: "c2", Name: "mrtr__slow", Args: `{}`}}}
		}
		return llmtest.Step{Text: "ok"}
	}))
	h := f.h
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		body, _ := json.Marshal(RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "book it")}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, strings.NewReader(string(body)))
		req.Header.Set("Origin", site)
		if resp, err := f.srv.Client().Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	waitParked(t, f.h, 1)
	cancel() // the client goes away while slow runs
	<-done
	waitParked(t, f.h, 0)
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(strings.Join(a.received(), " "), "book:cancel") {
		if time.Now().After(deadline) {
			t.Fatalf("the server received %v, want the parked call's question cancelled with its run", a.received())
		}
		time.Sleep(5 * time.Millisecond)
	}
	deadline = time.Now().Add(waitLimit)
	for {
		status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: []Message{}})
		if status == http.StatusConflict && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // the cut run still ends
			continue
		}
		if o := outcomeOf(evs); o != nil {
			t.Errorf("outcome %v, want none: the run that asked was cut short", o)
		}
		break
	}
	everyCallAnswered(t, f, "th")
	if got := mustLoad(t, f, "th"); !strings.Contains(fmt.Sprint(got), "the run ended before the visitor was asked the server's question") {
		t.Errorf("thread %v, want the parked call answered as cut short", got)
	}
}

// TestQuestionOfOneOfTwoCallsDeclined: a server's elicitation/create while a run has two
// calls under way on that server cannot be tied to either call (it does not come with a
// call's context), so it is declined rather than put to the visitor as the wrong call's
// question; the run goes on without an interrupt.
func TestQuestionOfOneOfTwoCallsDeclined(t *testing.T) {
	a := newAskerTools(t)
	f := newFixtureWith(t, nil, a.mgr, nil, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.Messages[len(req.Messages)-1].Role == "user" {
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c2", Name: "shop__slow", Args: `{}`}, {ID: "c1", Name: "shop__book", Args: `{}`}}}
		}
		return llmtest.Step{Text: "ok"}
	}))
	h := f.h
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	a.bookAfterSlow.Store(true) // the model's two calls start in either order
	go func() {                 // slow ends once book's question was answered
		deadline := time.Now().Add(waitLimit)
		for len(a.received()) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		close(a.slow)
	}()
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "book it")}})
	if o := outcomeOf(evs); o != nil {
		t.Errorf("outcome %v, want none: the question cannot be tied to a call", o)
	}
	if r := resultOf(evs, "c1"); r != "not booked: decline" {
		t.Errorf("book's result %q, want the server's answer to a decline", r)
	}
	if r := resultOf(evs, "c2"); r != "slow done" {
		t.Errorf("slow's result %q", r)
	}
}
