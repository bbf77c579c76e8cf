package agui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/planner"
)

// post sends body as it is and returns the status, the response body and its headers.
func (f *fixture) post(t *testing.T, body string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", site)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestInputChecked: what @ag-ui/core's RunAgentInputSchema refuses is refused with 400 and a
// body that says why, before anything is stored or the model called; the roles of its
// Message union this agent does not use (activity, reasoning) are accepted and ignored.
func TestInputChecked(t *testing.T) {
	f := newFixtureWith(t, nil, nil, func(o *Options) { o.RunBurst = 100 }, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	const u = `{"id":"u1","role":"user","content":"hi"}`
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"messages missing", `{"threadId":"t1","runId":"r"}`, 400, "messages is required"},
		{"messages null", `{"threadId":"t1","runId":"r","messages":null}`, 400, "messages is required"},
		{"message without id", `{"threadId":"t1","runId":"r","messages":[{"role":"user","content":"hi"}]}`, 400, "messages[0]: id is required"},
		{"message with an empty id", `{"threadId":"t1","runId":"r","messages":[` + u + `,{"id":"","role":"user","content":"hi"}]}`, 400, "messages[1]: id is required"},
		{"two messages with one id", `{"threadId":"t1","runId":"r","messages":[` + u + `,{"id":"u1","role":"user","content":"again"}]}`, 400, `messages[1]: id "u1" is used by an earlier message`},
		{"unknown role", `{"threadId":"t1","runId":"r","messages":[{"id":"x","role":"robot","content":"hi"}]}`, 400, `role "robot" is not an AG-UI role`},
		{"null message", `{"threadId":"t1","runId":"r","messages":[null]}`, 400, `messages[0] must be a message object with its role and id`},
		{"invalid UTF-8", "{\"threadId\":\"t1\",\"runId\":\"r\",\"messages\":[{\"id\":\"x\",\"role\":\"user\",\"content\":\"h\xffi\"}]}", 400, `the body is not valid UTF-8`},
		{"no role", `{"threadId":"t1","runId":"r","messages":[{"id":"x","content":"hi"}]}`, 400, `messages[0]: role is required`},
		{"trailing junk", `{"threadId":"t1","runId":"r","messages":[` + u + `]} junk`, 400, "invalid RunAgentInput"},
		{"a second value", `{"threadId":"t1","runId":"r","messages":[` + u + `]}{}`, 400, "more data after the JSON object"},
		{"not JSON", `{"threadId":`, 400, "invalid RunAgentInput"},
		{"no threadId", `{"runId":"r","messages":[]}`, 400, "threadId and runId are required"},
		{"tools null", `{"threadId":"t1","runId":"r","messages":[],"tools":null}`, 400, "tools must be an array"},
		{"context null", `{"threadId":"t1","runId":"r","messages":[],"context":null}`, 400, "context must be an array"},
		{"tools not an array", `{"threadId":"t1","runId":"r","messages":[],"tools":{}}`, 400, "invalid RunAgentInput: tools must be an array, not an object"},
		{"body an array", `[]`, 400, "the body must be an object, not an array"},
		{"threadId a number", `{"threadId":5,"runId":"r","messages":[]}`, 400, "invalid RunAgentInput: threadId must be a string, not a number"},
		{"empty body", ``, 400, "invalid RunAgentInput: the body is empty"},
		{"cut short", `{"threadId":"t1"`, 400, "invalid RunAgentInput: the body ends before its JSON object does"},
		{"not JSON", `{"threadId" 1}`, 400, "invalid RunAgentInput: not JSON: "},
		{"content a number", `{"threadId":"t1","runId":"r","messages":[{"id":"u1","role":"user","content":5}]}`, 400, "messages[0]: content must be a string or an array of content parts"},
		{"tool without description", `{"threadId":"t1","runId":"r","messages":[],"tools":[{"name":"a","parameters":{"type":"object"}}]}`, 400, "tools[0]: description is required"},
		{"tool with a numeric name", `{"threadId":"t1","runId":"r","messages":[],"tools":[{"name":"a","description":"d"},{"name":5,"description":"d"}]}`, 400, "tools.name must be a string, not a number"},
		{"context without value", `{"threadId":"t1","runId":"r","messages":[],"context":[{"description":"d"}]}`, 400, "context[0]: value is required"},
		{"tool call without type", `{"threadId":"t1","runId":"r","messages":[` + u + `,{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]}]}`, 400, `messages[1].toolCalls[0]: type must be "function"`},
		{"tool without parameters, forwardedProps null", `{"threadId":"t5","runId":"r","messages":[],"tools":[{"name":"a","description":""}],"forwardedProps":null}`, 200, ""},
		{"user message without content", `{"threadId":"t1","runId":"r","messages":[{"id":"u9","role":"user"}]}`, 400, "messages[0]: a user message needs its content"},
		{"tool message without content", `{"threadId":"t1","runId":"r","messages":[{"id":"x9","role":"tool","toolCallId":"c1","content":null}]}`, 400, "messages[0]: a tool message needs its content"},
		{"tool message without toolCallId", `{"threadId":"t1","runId":"r","messages":[{"id":"x9","role":"tool","content":"done"}]}`, 400, "a tool message needs its toolCallId"},
		{"messages empty", `{"threadId":"t2","runId":"r","messages":[]}`, 200, ""},
		{"trailing white space", `{"threadId":"t3","runId":"r","messages":[]}` + " \n", 200, ""},
		{"activity and reasoning ignored", `{"threadId":"t4","runId":"r","messages":[{"id":"a1","role":"activity","activityType":"plan","content":{"steps":[]}},{"id":"z1","role":"reasoning","content":"REASONING"},` + u + `]}`, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.fake.Requests())
			status, body, _ := f.post(t, tc.body)
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("got %d %q, want %d saying %q", status, body, tc.status, tc.says)
			}
			if status != http.StatusOK && len(f.fake.Requests()) != before {
				t.Errorf("a refused input called the model")
			}
		})
	}
	// The ignored messages reached neither the model nor the thread.
	reqs := f.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model calls %d, want 1", len(reqs))
	}
	for _, m := range reqs[0].Messages {
		if strings.Contains(m.Content, "REASONING") {
			t.Errorf("the model got the client's reasoning message: %+v", m)
		}
	}
	if ids := visibleIDs(mustLoad(t, f, "t4")); len(ids) != 2 || ids[0] != "u1" {
		t.Errorf("thread %v, want u1 and the answer", ids)
	}
}

// TestNewMessagesBounded: a run may add at most MaxNew user and tool messages (413 past it,
// nothing stored); a client sending its whole history again adds none.
func TestNewMessagesBounded(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	many := func(n int) []Message {
		var msgs []Message
		for i := range n {
			msgs = append(msgs, user(fmt.Sprintf("u%d", i), "x"))
		}
		return msgs
	}
	if status, _ := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-many", RunID: "r1", Messages: many(257)}); status != http.StatusRequestEntityTooLarge {
		t.Errorf("257 new messages: status %d, want 413", status)
	}
	if _, err := f.store.Load(t.Context(), threadKey(site, "th-many")); err == nil && len(mustLoad(t, f, "th-many")) != 0 {
		t.Errorf("the refused run stored messages")
	}
	if status, _ := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-many", RunID: "r2", Messages: many(256)}); status != http.StatusOK {
		t.Fatalf("256 new messages: status %d, want 200", status)
	}
	// The same history and one more: one new message.
	in := RunAgentInput{ThreadID: "th-many", RunID: "r3", Messages: append(snapshotMessages(t, f, "th-many"), user("last", "y"))}
	if status, _ := f.run(t, t.Context(), site, in); status != http.StatusOK {
		t.Fatalf("the whole history again: status %d, want 200", status)
	}
	if n := len(mustLoad(t, f, "th-many")); n != 256+1+1+1 {
		t.Errorf("stored %d messages, want %d (no duplicates)", n, 256+3)
	}
	if n := len(f.fake.Requests()[1].Messages); n != 1+256+1+1 { // system, thread, new message
		t.Errorf("the model got %d messages, want the system prompt and the thread", n)
	}
}

// TestFrontendToolDescriptionCut: a frontend tool's description reaches the model cut to
// tools.MaxDescription with a note, like a page tool's.
func TestFrontendToolDescriptionCut(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "ok"}))
	long := colorTool
	long.Description = strings.Repeat("d", 5000)
	f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-desc", RunID: "r", Messages: []Message{user("u1", "hi")}, Tools: []Tool{long}})
	offered := f.fake.Requests()[0].Tools
	if len(offered) != 1 {
		t.Fatalf("offered %v, want set_color", offered)
	}
	d := offered[0].Description
	if !strings.HasPrefix(d, strings.Repeat("d", 4096)) || strings.Contains(d, strings.Repeat("d", 4097)) || !strings.HasSuffix(d, "[description cut: 4096 of 5000 bytes]") {
		t.Errorf("description of %d bytes ending %q, want 4096 bytes and the note", len(d), d[max(0, len(d)-60):])
	}
}

// TestRetryAfterExposed: a page reads Retry-After on a 429 only when CORS exposes it.
func TestRetryAfterExposed(t *testing.T) {
	f := newFixtureWith(t, nil, nil, func(o *Options) { o.RunRate, o.RunBurst = 0.001, 1 }, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	body := `{"threadId":"t","runId":"r","messages":[]}`
	if status, _, _ := f.post(t, body); status != http.StatusOK {
		t.Fatalf("first run: status %d, want 200", status)
	}
	status, _, h := f.post(t, body)
	if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Fatalf("second run: %d Retry-After %q, want 429 with Retry-After", status, h.Get("Retry-After"))
	}
	if got := h.Get("Access-Control-Expose-Headers"); !slices.Contains(strings.Split(got, ", "), "Retry-After") || h.Get("Access-Control-Allow-Origin") != site {
		t.Errorf("Access-Control-Expose-Headers %q, Allow-Origin %q; want Retry-After exposed to %s", got, h.Get("Access-Control-Allow-Origin"), site)
	}
}

// TestUsage: RUN_FINISHED's usage names the provider and the model apart (@ag-ui/core's
// TokenUsage), and a model that counts no tokens (the offline planner) still gets one entry,
// of zeros; a run that calls no model has none.
func TestUsage(t *testing.T) {
	f := newFixture(t, nil, nil, llmtest.Script(llmtest.Step{Text: "Hello.", Usage: &llmtest.Usage{PromptTokens: 8, CompletionTokens: 5}}))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-usage", RunID: "r1", Messages: []Message{user("u1", "hi")}})
	want := `[{"provider":"custom","model":"fake-model","inputTokens":8,"outputTokens":5,"totalTokens":13}]`
	if got := evs[len(evs)-1]["usage"]; !sameJSON(got, want) {
		t.Errorf("usage %v, want %s", got, want)
	}
	_, evs = f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-usage", RunID: "r2", Messages: snapshotMessages(t, f, "th-usage")})
	if u, ok := evs[len(evs)-1]["usage"]; ok {
		t.Errorf("a run with nothing new has usage %v, want none", u)
	}

	off := newFixtureWith(t, nil, nil, func(o *Options) { o.Model = planner.New() })
	_, evs = off.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-offline", RunID: "r1", Messages: []Message{user("u1", "hello")}})
	want = `[{"model":"offline planner","inputTokens":0,"outputTokens":0,"totalTokens":0}]`
	if got := evs[len(evs)-1]["usage"]; evs[len(evs)-1].typ() != EventRunFinished || !sameJSON(got, want) {
		t.Errorf("offline planner: last event %v usage %v, want RUN_FINISHED with %s", evs[len(evs)-1].typ(), got, want)
	}
}

// TestUsageUnknownWhenCutShort: a run cancelled at shutdown while the model was still
// streaming has no token counts from it: RUN_FINISHED's usage names the model and leaves
// the counts out (unknown), instead of zeros.
func TestUsageUnknownWhenCutShort(t *testing.T) {
	f := newFixtureWith(t, nil, nil, func(o *Options) { o.ShutdownGrace = 50 * time.Millisecond },
		llmtest.Script(llmtest.Step{Text: "a b c d e f", FailAfterTokens: 2, Stall: true}))
	body, _ := json.Marshal(RunAgentInput{ThreadID: "th-cut", RunID: "r1", Messages: []Message{user("u1", "hi")}})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL, bytes.NewReader(body))
	req.Header.Set("Origin", site)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	streaming := make(chan struct{})
	var once sync.Once
	done := make(chan []event, 1)
	go func() {
		done <- readEvents(t, bufio.NewReader(resp.Body), func(e event) {
			if e.typ() == EventTextMessageContent {
				once.Do(func() { close(streaming) })
			}
		})
	}()
	<-streaming
	if err := f.h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	evs := <-done
	last := evs[len(evs)-1]
	want := `[{"provider":"custom","model":"fake-model"}]`
	if last.typ() != EventRunFinished || !sameJSON(last["outcome"], `{"type":"cancelled"}`) || !sameJSON(last["usage"], want) {
		t.Errorf("last event %v, want RUN_FINISHED cancelled with usage %s", last, want)
	}
}

// sameJSON reports whether v, decoded from JSON, is the JSON text want.
func sameJSON(v any, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	a, _ := json.Marshal(v)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}

func TestSplitModelName(t *testing.T) {
	for _, tc := range []struct{ name, provider, model string }{
		{"custom fake-model", "custom", "fake-model"},
		{"openrouter openai/gpt-4o-mini", "openrouter", "openai/gpt-4o-mini"},
		{"offline planner", "", "offline planner"},
		{"fake", "", "fake"},
	} {
		if p, m := splitModelName(tc.name); p != tc.provider || m != tc.model {
			t.Errorf("splitModelName(%q) = %q, %q; want %q, %q", tc.name, p, m, tc.provider, tc.model)
		}
	}
}

// TestContentPartsAsText: what the model reads of content parts: text parts joined, any
// other part a note (with its article), a part without a type too.
func TestContentPartsAsText(t *testing.T) {
	got := text(json.RawMessage(`[{"type":"text","text":"Look:"},{"type":"image","url":"x"},{"type":"binary"},{}]`))
	want := "Look:\n[an image part was attached; this agent reads text only]\n[a binary part was attached; this agent reads text only]\n[an untyped part was attached; this agent reads text only]"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
