package agui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// adminTools is a real MCP server (go-sdk, over Streamable HTTP) with a destructive tool,
// wipe, that records each run's scope, and a harmless one, count.
type adminTools struct {
	mgr    *mcpservers.Manager
	mu     sync.Mutex
	wipes  []string // the scope of each run of wipe
	counts atomic.Int32
}

func (a *adminTools) wiped() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.wipes)
}

func newAdminTools(t *testing.T) *adminTools {
	t.Helper()
	a := &adminTools{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "admin", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wipe", Description: "Deletes orders.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"scope":{"type":"string","enum":["all","old"]}},"required":["scope"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Scope string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			a.mu.Lock()
			a.wipes = append(a.wipes, args.Scope)
			a.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted the orders, scope " + args.Scope}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "count", Description: "Counts orders.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a.counts.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "12 orders"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	a.mgr = mcpservers.Start(t.Context(), &mcpservers.Config{Servers: []mcpservers.ServerConfig{
		{Name: "admin", Transport: mcpservers.TransportStreamable, URL: hs.URL, Expose: []string{mcpservers.AudienceWeb}},
	}}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp")})
	t.Cleanup(a.mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := a.mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// wipeModel calls admin__wipe (scope all) and admin__count in one response until the
// conversation holds an answer to the wipe call, then answers.
func wipeModel() llmtest.Option {
	return llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID == "c_wipe" {
				return llmtest.Step{Text: "Answered."}
			}
		}
		return llmtest.Step{ToolCalls: []llmtest.FakeCall{
			{ID: "c_wipe", Name: "admin__wipe", Args: `{"scope":"all"}`},
			{ID: "c_count", Name: "admin__count", Args: `{}`},
		}}
	})
}

// clock is a settable time for the interrupts' expiry.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func confirmFixture(t *testing.T, st store.Store, a *adminTools, c *clock) *fixture {
	t.Helper()
	return newFixtureWith(t, st, a.mgr, func(o *Options) { o.Now = c.now }, wipeModel())
}

// outcomeOf returns RUN_FINISHED's outcome (nil when absent or when the run did not finish).
func outcomeOf(evs []event) map[string]any {
	if len(evs) == 0 || evs[len(evs)-1].typ() != EventRunFinished {
		return nil
	}
	o, _ := evs[len(evs)-1]["outcome"].(map[string]any)
	return o
}

// interruptsOf returns the interrupts of RUN_FINISHED's interrupt outcome.
func interruptsIn(t *testing.T, evs []event) []Interrupt {
	t.Helper()
	o := outcomeOf(evs)
	if o == nil || o["type"] != "interrupt" {
		t.Fatalf("events %v, outcome %v: want RUN_FINISHED with the interrupt outcome", types(evs), o)
	}
	b, _ := json.Marshal(o["interrupts"])
	var ins []Interrupt
	if err := json.Unmarshal(b, &ins); err != nil {
		t.Fatal(err)
	}
	return ins
}

// resultOf is the content of TOOL_CALL_RESULT for call id ("" when none).
func resultOf(evs []event, id string) string {
	for _, e := range evs {
		if e.typ() == EventToolCallResult && e.str("toolCallId") == id {
			return e.str("content")
		}
	}
	return ""
}

// modelRead is what the model last read as the answer to call id ("" when never).
func modelRead(f *fixture, id string) string {
	got := ""
	for _, r := range f.fake.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				got = m.Content
			}
		}
	}
	return got
}

// everyCallAnswered fails when a stored call of the thread has no answer.
func everyCallAnswered(t *testing.T, f *fixture, threadID string) {
	t.Helper()
	msgs := mustLoad(t, f, threadID)
	answered := answeredCalls(msgs)
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				t.Errorf("call %s (%s) has no answer in the thread", tc.ID, tc.Name)
			}
		}
	}
}

// post sends in and returns the status and the body (the events when 200).
func (f *fixture) postInput(t *testing.T, in RunAgentInput) (int, string) {
	t.Helper()
	b, _ := json.Marshal(in)
	status, body, _ := f.post(t, string(b))
	return status, body
}

// TestConfirmationInterrupts: a server tool that needs the visitor's confirmation ends the
// run with RUN_FINISHED's interrupt outcome (one interrupt for the call, the harmless call of
// the same response run first), and the next run's resume answers it; every way of
// answering, or of not answering, as a table (issue 38, point 6).
func TestConfirmationInterrupts(t *testing.T) {
	type want struct {
		status    int      // of the answering run
		body      string   // in the refusal's body
		wipes     []string // the scopes wipe ran with, in all
		modelRead string   // in what the model read for c_wipe ("" = not answered yet)
		stillOpen bool     // the run ends with the interrupt outcome again
		warning   string   // in RUN_FINISHED's result.warnings
	}
	approve := func(id string) []ResumeEntry {
		return []ResumeEntry{{InterruptID: id, Status: ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}}
	}
	cases := []struct {
		name   string
		answer func(t *testing.T, f *fixture, c *clock, in RunAgentInput) RunAgentInput // the answering run
		want   want
	}{
		{"approve", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume = approve(in.Resume[0].InterruptID)
			return in
		}, want{status: 200, wipes: []string{"all"}, modelRead: "deleted the orders, scope all"}},
		{"approve with edited arguments", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Payload = json.RawMessage(`{"approved":true,"arguments":{"scope":"old"}}`)
			return in
		}, want{status: 200, wipes: []string{"old"}, modelRead: `edited arguments: {"scope":"old"}`}},
		{"approve with invalid edited arguments", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Payload = json.RawMessage(`{"approved":true,"arguments":{"scope":"everything"}}`)
			return in
		}, want{status: 400, body: "the edited arguments do not match the tool's schema"}},
		{"approve without a payload", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Payload = nil
			return in
		}, want{status: 400, body: `needs its payload {"approved": true|false}`}},
		{"decline with a reason", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Payload = json.RawMessage(`{"approved":false,"reason":"not before the audit"}`)
			return in
		}, want{status: 200, modelRead: `the visitor declined this call, saying: "not before the audit"`}},
		{"cancelled", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume[0].Status, in.Resume[0].Payload = ResumeCancelled, nil
			return in
		}, want{status: 200, modelRead: "the visitor cancelled the confirmation of this call"}},
		{"unknown id", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume = approve("int_not_ours")
			return in
		}, want{status: 200, stillOpen: true, warning: `"int_not_ours" is not one of this thread's`}},
		{"answered twice", func(t *testing.T, f *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume = approve(in.Resume[0].InterruptID)
			if status, body := f.postInput(t, in); status != 200 {
				t.Fatalf("the first answer: %d %s", status, body)
			}
			in.RunID += "-again"
			return in
		}, want{status: 409, body: "was already answered: an interrupt is answered once", wipes: []string{"all"}, modelRead: "scope all"}},
		{"expired", func(_ *testing.T, _ *fixture, c *clock, in RunAgentInput) RunAgentInput {
			c.advance(defaultInterruptTTL + time.Second)
			in.Resume = approve(in.Resume[0].InterruptID)
			return in
		}, want{status: 200, modelRead: "did not confirm this call before its confirmation expired at 2026-12-04T10:15:00Z"}},
		{"no resume and a new message", func(_ *testing.T, _ *fixture, _ *clock, in RunAgentInput) RunAgentInput {
			in.Resume = nil
			in.Messages = append(in.Messages, user("u2", "are you done?"))
			return in
		}, want{status: 200, stillOpen: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAdminTools(t)
			c := newClock()
			f := confirmFixture(t, nil, a, c)
			status, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "delete the orders")}})
			if status != 200 {
				t.Fatalf("status %d", status)
			}
			ins := interruptsIn(t, evs)
			if len(ins) != 1 {
				t.Fatalf("interrupts %+v, want one", ins)
			}
			in := ins[0]
			exp, err := time.Parse(time.RFC3339, in.ExpiresAt)
			if !strings.HasPrefix(in.ID, "int_") || len(in.ID) != 4+32 || in.Reason != "confirmation" || in.ToolCallID != "c_wipe" ||
				err != nil || !exp.Equal(c.now().Add(defaultInterruptTTL)) || !strings.Contains(string(in.ResponseSchema), `"enum":["all","old"]`) {
				t.Errorf("interrupt %+v, want an unguessable id, reason confirmation, the call's id, expiry in 15 min and the tool's schema", in)
			}
			if r := resultOf(evs, "c_count"); r != "12 orders" || len(a.wiped()) != 0 || resultOf(evs, "c_wipe") != "" {
				t.Errorf("count's result %q, wipes %v: want the harmless call run, the confirmed one not", r, a.wiped())
			}
			requests := len(f.fake.Requests())

			next := tc.answer(t, f, c, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: snapshotMessages(t, f, "th"),
				Resume: []ResumeEntry{{InterruptID: in.ID, Status: ResumeResolved}}})
			status, body := f.postInput(t, next)
			if status != tc.want.status || !strings.Contains(body, tc.want.body) {
				t.Fatalf("status %d %q, want %d with %q", status, body, tc.want.status, tc.want.body)
			}
			if got := a.wiped(); !slices.Equal(got, tc.want.wipes) {
				t.Errorf("wipe ran with %v, want %v", got, tc.want.wipes)
			}
			if got := modelRead(f, "c_wipe"); tc.want.modelRead == "" && got != "" || !strings.Contains(got, tc.want.modelRead) {
				t.Errorf("the model read %q for the wipe call, want %q in it", got, tc.want.modelRead)
			}
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
					t.Errorf("the model was called %d times more while the interrupt is open, want 0", n-requests)
				}
				res, _ := evs[len(evs)-1]["result"].(map[string]any)
				if w := fmt.Sprint(res["warnings"]); !strings.Contains(w, tc.want.warning) {
					t.Errorf("warnings %s, want %q in them", w, tc.want.warning)
				}
				for _, m := range mustLoad(t, f, "th") {
					if m.Role == chat.RoleUser && m.ID == "u2" {
						t.Errorf("the new message was stored while the interrupt is open: it would come between the call and its answer")
					}
				}
				return
			}
			if o := outcomeOf(evs); o != nil && o["type"] != "success" {
				t.Errorf("outcome %v, want success", o)
			}
			if r := resultOf(evs, "c_wipe"); r == "" {
				t.Errorf("events %v: want the wipe call's TOOL_CALL_RESULT", types(evs))
			}
			if got := textOf(evs); got != "Answered." {
				t.Errorf("text %q, want the model's answer", got)
			}
			everyCallAnswered(t, f, "th")
		})
	}
}

// TestNewMessageWaitsForTheInterrupt: a new user message sent without an answer to the open
// interrupt neither abandons it (AG-UI: omission is not abandonment) nor reaches the model;
// sent again with the answer, it follows the call's answer in the thread.
func TestNewMessageWaitsForTheInterrupt(t *testing.T) {
	a := newAdminTools(t)
	f := confirmFixture(t, nil, a, newClock())
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "delete the orders")}})
	id := interruptsIn(t, evs)[0].ID
	msgs := append(snapshotMessages(t, f, "th"), user("u2", "and then count them"))
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: msgs})
	if ins := interruptsIn(t, evs); ins[0].ID != id {
		t.Fatalf("interrupts %+v, want %s again", ins, id)
	}
	for _, e := range evs {
		if e.typ() == EventMessagesSnapshot {
			t.Errorf("a snapshot was sent: it would drop the client's held message")
		}
	}
	status, body := f.postInput(t, RunAgentInput{ThreadID: "th", RunID: "r3", Messages: msgs,
		Resume: []ResumeEntry{{InterruptID: id, Status: ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}}})
	if status != 200 || !strings.Contains(body, "Answered.") {
		t.Fatalf("status %d %s", status, body)
	}
	var order []string
	for _, m := range mustLoad(t, f, "th") {
		order = append(order, m.Role+":"+m.ToolCallID+m.ID)
	}
	i, j := slices.IndexFunc(order, func(s string) bool { return strings.HasPrefix(s, "tool:c_wipe") }), slices.Index(order, "user:u2")
	if i < 0 || j < 0 || i > j {
		t.Errorf("thread %v, want the wipe call's answer before u2", order)
	}
	if got := a.wiped(); !slices.Equal(got, []string{"all"}) {
		t.Errorf("wipe ran with %v, want once", got)
	}
	everyCallAnswered(t, f, "th")
}

// TestInterruptResolvedAfterRestart: the open interrupt is the store's (SQLite): a new
// handler on the same file, as after a restart or on another replica, resolves it, and a
// reloaded client first gets it again with the thread's snapshot, the call pending, then its
// result.
func TestInterruptResolvedAfterRestart(t *testing.T) {
	path := "sqlite:" + filepath.Join(t.TempDir(), "threads.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	a := newAdminTools(t)
	c := newClock()
	f := confirmFixture(t, st, a, c)
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "delete the orders")}})
	id := interruptsIn(t, evs)[0].ID
	f.srv.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	f2 := confirmFixture(t, st2, a, c)
	// A reloaded client: no messages. The thread's snapshot has the call pending, and the
	// run ends with the interrupt still open.
	_, evs = f2.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r2", Messages: []Message{}})
	if ins := interruptsIn(t, evs); len(ins) != 1 || ins[0].ID != id {
		t.Fatalf("interrupts %+v, want %s", ins, id)
	}
	snap := snapshotIn(t, evs)
	if !hasCall(snap, "c_wipe") || hasResult(snap, "c_wipe") || !hasResult(snap, "c_count") {
		t.Errorf("snapshot %+v, want the wipe call pending and count's result", snap)
	}
	status, body := f2.postInput(t, RunAgentInput{ThreadID: "th", RunID: "r3", Messages: snap,
		Resume: []ResumeEntry{{InterruptID: id, Status: ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}}})
	if status != 200 {
		t.Fatalf("status %d %s", status, body)
	}
	if got := a.wiped(); !slices.Equal(got, []string{"all"}) {
		t.Errorf("wipe ran with %v, want once, on the new handler", got)
	}
	_, evs = f2.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r4", Messages: []Message{}})
	if snap := snapshotIn(t, evs); !hasResult(snap, "c_wipe") {
		t.Errorf("snapshot %+v, want the wipe call with its result", snap)
	}
	if o := outcomeOf(evs); o != nil {
		t.Errorf("outcome %v, want none: nothing is open", o)
	}
	everyCallAnswered(t, f2, "th")
}

// TestConfirmPolicyInterrupts: a server tool named in the confirm policy (--confirm-tools)
// waits for the visitor too, though the tool says nothing of itself; at most
// maxPendingInterrupts calls wait at once, the others answered as not run.
func TestConfirmPolicyInterrupts(t *testing.T) {
	a := newAdminTools(t)
	var calls []llmtest.FakeCall
	for i := range maxPendingInterrupts + 2 {
		calls = append(calls, llmtest.FakeCall{ID: fmt.Sprintf("c_%02d", i), Name: "admin__count", Args: `{}`})
	}
	f := newFixtureWith(t, nil, a.mgr, func(o *Options) { o.ConfirmTools = []string{"admin__count"}; o.Limits.MaxToolCalls = 64 },
		llmtest.Script(llmtest.Step{ToolCalls: calls}))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "count")}})
	ins := interruptsIn(t, evs)
	if len(ins) != maxPendingInterrupts || ins[0].ToolCallID != "c_00" || ins[len(ins)-1].ToolCallID != fmt.Sprintf("c_%02d", maxPendingInterrupts-1) {
		t.Errorf("%d interrupts, want %d in the model's order", len(ins), maxPendingInterrupts)
	}
	if n := a.counts.Load(); n != 0 {
		t.Errorf("count ran %d times, want none before the visitor confirms", n)
	}
	fin, _ := json.Marshal(evs[len(evs)-1])
	t.Logf("RUN_FINISHED with %d interrupts: %d bytes", len(ins), len(fin))
	over := fmt.Sprintf("c_%02d", maxPendingInterrupts)
	if r := resultOf(evs, over); !strings.Contains(r, "at most 16 calls may wait") {
		t.Errorf("the call past the bound: %q, want it answered as not run", r)
	}
}

// TestResumeBounded: too many resume entries, or too large a payload, are refused (413)
// before anything is stored; a status AG-UI does not define is a 400.
func TestResumeBounded(t *testing.T) {
	f := newFixture(t, nil, nil)
	many := make([]ResumeEntry, maxResumeEntries+1)
	for i := range many {
		many[i] = ResumeEntry{InterruptID: fmt.Sprint(i), Status: ResumeCancelled}
	}
	big := json.RawMessage(`{"approved":false,"reason":"` + strings.Repeat("x", maxPayloadBytes) + `"}`)
	for _, tc := range []struct {
		name   string
		resume []ResumeEntry
		status int
		body   string
	}{
		{"too many entries", many, 413, "at most 64"},
		{"too large a payload", []ResumeEntry{{InterruptID: "i", Status: ResumeResolved, Payload: big}}, 413, "at most 16384"},
		{"unknown status", []ResumeEntry{{InterruptID: "i", Status: "approved"}}, 400, `status must be "resolved" or "cancelled"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.postInput(t, RunAgentInput{ThreadID: "th-b", RunID: "r", Messages: []Message{user("u", "hi")}, Resume: tc.resume})
			if status != tc.status || !strings.Contains(body, tc.body) {
				t.Errorf("status %d %q, want %d with %q", status, body, tc.status, tc.body)
			}
		})
	}
	if s, err := f.store.Load(t.Context(), threadKey(site, "th-b")); err == nil && len(s.Messages) > 0 {
		t.Errorf("stored %d messages of refused runs, want none", len(s.Messages))
	}
}

func snapshotIn(t *testing.T, evs []event) []Message {
	t.Helper()
	for _, e := range evs {
		if e.typ() == EventMessagesSnapshot {
			b, _ := json.Marshal(e["messages"])
			var msgs []Message
			if err := json.Unmarshal(b, &msgs); err != nil {
				t.Fatal(err)
			}
			return msgs
		}
	}
	t.Fatalf("events %v: no MESSAGES_SNAPSHOT", types(evs))
	return nil
}

func hasCall(msgs []Message, id string) bool {
	return slices.ContainsFunc(msgs, func(m Message) bool {
		return slices.ContainsFunc(m.ToolCalls, func(tc ToolCall) bool { return tc.ID == id })
	})
}

func hasResult(msgs []Message, id string) bool {
	return slices.ContainsFunc(msgs, func(m Message) bool { return m.Role == RoleTool && m.ToolCallID == id })
}

// textOf is the text the run streamed.
func textOf(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.typ() == EventTextMessageContent {
			b.WriteString(e.str("delta"))
		}
	}
	return b.String()
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// TestApprovedCallCutByACrash: a replica that died while an approved call ran (its answer
// stored, its result not) leaves the call answered "outcome unknown" by the thread's next
// run, never run again: the interrupt was answered once.
func TestApprovedCallCutByACrash(t *testing.T) {
	a := newAdminTools(t)
	f := confirmFixture(t, nil, a, newClock())
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []Message{user("u1", "delete the orders")}})
	in := interruptsIn(t, evs)[0]
	// What the resume run stored before it died: the approval, and the thread as running.
	key := threadKey(site, "th")
	s, err := f.store.Load(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(answeredEvent{Seq: s.Seq + 1, Type: eventInterruptAnswered, InterruptID: in.ID, ToolCallID: in.ToolCallID, Decision: decisionApproved})
	active := "r-died"
	if err := f.store.Append(t.Context(), key, store.Batch{Events: []store.Event{{Seq: s.Seq + 1, Data: data}}, ActiveTurn: &active}); err != nil {
		t.Fatal(err)
	}
	msgs := append(snapshotMessages(t, f, "th"), user("u2", "did it work?"))
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th", RunID: "r3", Messages: msgs})
	if o := outcomeOf(evs); o != nil && o["type"] == "interrupt" {
		t.Fatalf("outcome %v: the interrupt was answered, it must not be asked again", o)
	}
	if got := modelRead(f, "c_wipe"); !strings.Contains(got, "outcome of this call is unknown") {
		t.Errorf("the model read %q for the wipe call, want its outcome unknown", got)
	}
	if got := a.wiped(); len(got) != 0 {
		t.Errorf("wipe ran %v, want never (the crashed run's fake approval did not run it)", got)
	}
	status, body := f.postInput(t, RunAgentInput{ThreadID: "th", RunID: "r4", Messages: msgs,
		Resume: []ResumeEntry{{InterruptID: in.ID, Status: ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}}})
	if status != http.StatusConflict || len(a.wiped()) != 0 {
		t.Errorf("approving it again: %d %q, wipes %v; want 409 and no run", status, body, a.wiped())
	}
	everyCallAnswered(t, f, "th")
}
