package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Process-level tests of conversations that survive: `byomcp serve` is this test binary run
// again with BYOMCP_TEST_MAIN=1 (see TestMain), killed with SIGKILL and restarted on its
// SQLite file, or run twice on one Redis.

// procWait bounds every wait of these tests; hitting it is a failure.
const procWait = 30 * time.Second

// pageOrigin is the origin the test pages send (allowed by serve's defaults).
const pageOrigin = "http://localhost:3000"

// serveProc is one `byomcp serve` process.
type serveProc struct {
	cmd    *exec.Cmd
	url    string // http://HOST:PORT, from the first line of its output
	logs   *syncBuffer
	exited chan struct{}
}

// startServe starts `byomcp serve` on a free loopback port with a fake model at fakeURL
// (spawnServe, which the balancer tests use too).
func startServe(t *testing.T, fakeURL string, args ...string) *serveProc {
	t.Helper()
	return spawnServe(t, "127.0.0.1:0", []string{"OPENAI_BASE_URL=" + fakeURL}, append([]string{"--log-level", "debug"}, args...)...)
}

// startLogs is the process's log up to its "serving" line. The URL on stdout comes before
// the log lines on stderr are copied (another pipe, another goroutine): a log read at once
// can miss what start-up logged (TestSitesWarnOfUnknownServers failed so, its log empty, when
// run beside other packages).
func (p *serveProc) startLogs(t *testing.T) string {
	t.Helper()
	for i := 0; i < 250 && !strings.Contains(p.logs.String(), `"msg":"serving"`); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return p.logs.String()
}

// kill9 ends the process with SIGKILL: no shutdown, no flush, nothing.
func (p *serveProc) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(procWait):
		t.Fatal("the process outlived SIGKILL")
	}
}

// turnsEnded reads byomcp_turns_total{stop_reason="end"} from the process's /metrics.
func (p *serveProc) turnsEnded(t *testing.T) string {
	t.Helper()
	return p.turns(t, "end")
}

// turns reads byomcp_turns_total{stop_reason=reason} from the process's /metrics.
func (p *serveProc) turns(t *testing.T, reason string) string {
	t.Helper()
	resp, err := http.Get(p.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^byomcp_turns_total\{stop_reason="` + regexp.QuoteMeta(reason) + `"\} (\S+)$`).FindSubmatch(body)
	if m == nil {
		return "0"
	}
	return string(m[1])
}

// procEvent is the part of an agent/event these tests look at.
type procEvent struct {
	SessionID   string `json:"sessionId"`
	TurnID      string `json:"turnId"`
	Seq         int64  `json:"seq"`
	Type        string `json:"type"`
	Delta       string `json:"delta"`
	Text        string `json:"text"`
	StopReason  string `json:"stopReason"`
	Interrupted bool   `json:"interrupted"`
}

// procPage is a page written against the wire protocol: it answers the agent's MCP requests
// with its tools and records the events it gets.
type procPage struct {
	t       *testing.T
	peer    *wsrpc.Peer
	events  chan procEvent
	replica string // the backend a balancer sent the socket to (its replicaHeader)
}

// procTool is a page tool: its schema is {"type":"object"} and fn answers with text.
type procTool struct {
	name string
	fn   func(ctx context.Context) string
}

func dialPage(t *testing.T, serverURL string, tools ...procTool) *procPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	h := http.Header{}
	h.Set("Origin", pageOrigin)
	mc, resp, err := wsrpc.Dial(ctx, "ws"+strings.TrimPrefix(serverURL, "http")+"/v1/ws", h, wsrpc.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	p := &procPage{t: t, events: make(chan procEvent, 1024), replica: resp.Header.Get(replicaHeader)}
	peer := wsrpc.NewPeer(mc, wsrpc.Options{PingInterval: -1})
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.name
	}
	handlePage(peer, "test-page", names, func(ctx context.Context, name string) (any, bool) {
		for _, tool := range tools {
			if tool.name == name {
				return map[string]any{"content": []any{map[string]any{"type": "text", "text": tool.fn(ctx)}}}, true
			}
		}
		return nil, false
	})
	peer.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) {
		var e procEvent
		_ = json.Unmarshal(req.Params, &e)
		select {
		case p.events <- e:
		default:
			t.Errorf("page: event buffer full")
		}
	})
	p.peer = peer
	peer.Start()
	t.Cleanup(func() {
		peer.Close(nil)
		_ = peer.Wait()
	})
	return p
}

// handlePage registers on peer what a test page answers: initialize (as page name), ping,
// tools/list with the tools named (each taking any object) and tools/call, whose result is
// call's (false: no such tool).
func handlePage(peer *wsrpc.Peer, name string, tools []string, call func(ctx context.Context, tool string) (any, bool)) {
	peer.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: name, Version: "1"}}, nil
	})
	peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	peer.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		res := wire.ToolsListResult{Tools: []wire.PageTool{}}
		for _, tool := range tools {
			res.Tools = append(res.Tools, wire.PageTool{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		return res, nil
	})
	peer.Handle(wire.MethodToolsCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var cp wire.ToolsCallParams
		_ = json.Unmarshal(req.Params, &cp)
		if res, ok := call(ctx, cp.Name); ok {
			return res, nil
		}
		return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, "no such tool")
	})
}

func (p *procPage) session(params wire.SessionParams) wire.SessionResult {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var res wire.SessionResult
	if err := p.peer.Call(ctx, wire.MethodAgentSession, params, &res); err != nil {
		p.t.Fatalf("agent/session: %v", err)
	}
	return res
}

func (p *procPage) chat(text string) wire.ChatResult {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var res wire.ChatResult
	if err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: text}, &res); err != nil {
		p.t.Fatalf("agent/chat %q: %v", text, err)
	}
	return res
}

// until collects events up to and including the first that done accepts.
func (p *procPage) until(done func(procEvent) bool) []procEvent {
	p.t.Helper()
	var out []procEvent
	for range 10000 {
		select {
		case e := <-p.events:
			out = append(out, e)
			if done(e) {
				return out
			}
		case <-time.After(procWait):
			p.t.Fatalf("no awaited event; got %+v", out)
		}
	}
	p.t.Fatal("no awaited event in 10000")
	return nil
}

func isTurnEnd(e procEvent) bool { return e.Type == wire.EventTurnEnd }

// lastSeen is the last seq among evs.
func lastSeen(evs []procEvent) int64 {
	var m int64
	for _, e := range evs {
		m = max(m, e.Seq)
	}
	return m
}

// wantSeqs checks that evs are numbered 1..len(evs), once each, in order.
func wantSeqs(t *testing.T, evs []procEvent) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d is seq %d (%s), want %d: a gap, a double or a wrong order", i, e.Seq, e.Type, i+1)
		}
	}
}

func roleContents(msgs []llmtest.RecordedMessage) string {
	var out []string
	for _, m := range msgs[1:] { // after the system prompt
		out = append(out, m.Role+":"+m.Content)
	}
	return strings.Join(out, "|")
}

// wantNoFullID checks that a process's logs never hold the session id in full.
func wantNoFullID(t *testing.T, name string, p *serveProc, id string) {
	t.Helper()
	logs := p.logs.String()
	if strings.Contains(logs, id) {
		t.Errorf("the logs of %s contain the full session id %s", name, id)
	}
	if !strings.Contains(logs, id[:8]) {
		t.Errorf("the logs of %s never name the session by its short id; wrong logs?", name)
	}
}

func TestKill9KeepsCompletedTurns(t *testing.T) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		last := req.LastMessage()
		switch {
		case last.Role == "tool":
			return llmtest.Step{Text: "Unreachable."}
		case last.Content == "two":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_block", Name: "block", Args: `{}`}}}
		default:
			return llmtest.Step{Text: "Answer-" + last.Content + "."}
		}
	}))
	t.Cleanup(fake.Close)
	db := "sqlite:" + filepath.Join(t.TempDir(), "byomcp.db")

	first := startServe(t, fake.URL, "--store", db)
	blocked := make(chan struct{}, 1)
	block := procTool{name: "block", fn: func(ctx context.Context) string {
		blocked <- struct{}{}
		<-ctx.Done() // until the server dies under it
		return "never"
	}}
	page := dialPage(t, first.url, block)
	sess := page.session(wire.SessionParams{})
	if res := page.chat("one"); res.Text != "Answer-one." || res.StopReason != wire.StopEnd {
		t.Fatalf("turn 1: got %+v", res)
	}
	seen := page.until(isTurnEnd)
	go func() {
		var res wire.ChatResult
		_ = page.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "two"}, &res)
	}()
	select {
	case <-blocked:
	case <-time.After(procWait):
		t.Fatal("turn 2 never called the page's tool")
	}
	seen = append(seen, page.until(func(e procEvent) bool { return e.Type == wire.EventTurnStart })...)
	first.kill9(t) // mid-turn
	<-page.peer.Done()
	seen = append(seen, drain(page.events)...)

	second := startServe(t, fake.URL, "--store", db)
	back := dialPage(t, second.url, block)
	last := lastSeen(seen)
	res := back.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("got %+v, want the session resumed after the restart", res)
	}
	var got []string
	for _, m := range res.Messages {
		got = append(got, m.Role+":"+m.Content)
	}
	// Turn 2 holds the call it made, answered as of unknown outcome (the page never
	// answered it), then the mark of the interrupted turn.
	if len(got) != 6 || got[0] != "user:one" || got[1] != "assistant:Answer-one." || got[2] != "user:two" ||
		len(res.Messages[3].ToolCalls) != 1 || res.Messages[3].ToolCalls[0].ID != "call_block" ||
		res.Messages[4].ToolCallID != "call_block" || !strings.Contains(got[4], "unknown") || got[5] != "assistant:" ||
		res.Messages[5].End == nil || res.Messages[5].End.StopReason != wire.StopError || !strings.Contains(res.Messages[5].End.Error, "interrupted") {
		t.Errorf("got history %q (end of turn 2: %+v), want turn 1 whole and turn 2's call, of unknown outcome, marked interrupted", got, res.Messages[len(res.Messages)-1].End)
	}
	seen = append(seen, back.until(isTurnEnd)...)
	end := seen[len(seen)-1]
	if !end.Interrupted || end.StopReason != wire.StopError || end.TurnID != res.Messages[2].TurnID || end.Seq != res.Seq {
		t.Errorf("got %+v, want turn_end interrupted for turn 2 at seq %d", end, res.Seq)
	}

	if r := back.chat("three"); r.Text != "Answer-three." || r.StopReason != wire.StopEnd {
		t.Errorf("turn 3: got %+v, want it to run normally", r)
	}
	seen = append(seen, back.until(isTurnEnd)...)
	wantSeqs(t, seen)
	reqs := fake.Requests()
	// The interrupted turn's mark is never sent to the model; its call is, with its unknown
	// outcome.
	want := "user:one|assistant:Answer-one.|user:two|assistant:|tool:" + unknownOutcome + "|user:three"
	if got := roleContents(reqs[len(reqs)-1].Messages); got != want {
		t.Errorf("turn 3's model call saw %q, want %q", got, want)
	}
	if !strings.Contains(second.logs.String(), "marked an interrupted turn") {
		t.Error("the restarted server did not log the interrupted turn")
	}
	wantNoFullID(t, "the killed server", first, sess.SessionID)
	wantNoFullID(t, "the restarted server", second, sess.SessionID)
}

// unknownOutcome is how the agent answers a call of an interrupted turn that never came back
// (agentsvc's outcomeUnknown).
const unknownOutcome = "The outcome of this call is unknown: it was sent, but the agent stopped before its result came back, so it may or may not have run. Check before doing it again."

// drain returns the events already received.
func drain(ch chan procEvent) []procEvent {
	var out []procEvent
	for {
		select {
		case e := <-ch:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestTwoReplicasShareRedis(t *testing.T) {
	redisURL := storetest.RedisServer(t)
	const answer = "one two three four five six seven eight"
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		last := req.LastMessage()
		switch {
		case last.Role == "tool":
			return llmtest.Step{Text: answer, ChunkDelay: 30 * time.Millisecond}
		case last.Content == "first":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_echo", Name: "echo", Args: `{}`}}}
		default:
			return llmtest.Step{Text: "Answered."}
		}
	}))
	t.Cleanup(fake.Close)
	a := startServe(t, fake.URL, "--store", redisURL)
	b := startServe(t, fake.URL, "--store", redisURL)
	var onA, onB atomic.Int32 // tool calls run by the page on each replica
	echo := func(n *atomic.Int32) procTool {
		return procTool{name: "echo", fn: func(context.Context) string { n.Add(1); return "echoed" }}
	}

	page := dialPage(t, a.url, echo(&onA))
	sess := page.session(wire.SessionParams{})
	go func() {
		var res wire.ChatResult
		_ = page.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "first"}, &res)
	}()
	seen := page.until(func(e procEvent) bool { return e.Type == wire.EventTextDelta })
	page.peer.Close(nil) // the socket drops while a streams the answer

	// The load balancer sends the reconnect to b while a still runs the turn: b serves the
	// page, and the turn's events reach it from the log in Redis as a appends them.
	moved := dialPage(t, b.url, echo(&onB))
	last := lastSeen(seen)
	res := moved.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.SessionID != sess.SessionID {
		t.Fatalf("got %+v, want the session resumed on the other replica", res)
	}
	ended := len(res.Messages) == 4 && res.Messages[3].Content == answer // a slow machine: a finished first
	if len(res.Messages) == 0 || res.Messages[0].Content != "first" || (res.Running == nil && !ended) {
		t.Errorf("got %+v, want the running turn and its user message (or, if a finished meanwhile, the whole turn)", res)
	}
	replay := moved.until(isTurnEnd)
	seen = append(seen, replay...)
	text := ""
	for _, e := range seen {
		text += e.Delta
	}
	if text != answer {
		t.Errorf("the page got the text %q over both replicas, want %q once", text, answer)
	}
	end := seen[len(seen)-1]
	if end.StopReason != wire.StopEnd {
		t.Errorf("got last event %+v, want turn_end", end)
	}
	prev := int64(0)
	for _, e := range seen {
		if e.Seq <= prev {
			t.Errorf("seq %d after %d: doubled or out of order", e.Seq, prev)
		}
		prev = e.Seq
	}

	if r := moved.chat("second"); r.Text != "Answered." {
		t.Fatalf("turn 2 on b: got %+v", r)
	}
	next := moved.until(isTurnEnd)
	if next[0].Type != wire.EventTurnStart || next[0].Seq != end.Seq+1 {
		t.Errorf("turn 2 starts with %+v, want turn_start at seq %d", next[0], end.Seq+1)
	}
	reqs := fake.Requests()
	want := "user:first|assistant:|tool:|assistant:" + answer + "|user:second"
	got := regexp.MustCompile(`tool:[^|]*`).ReplaceAllString(roleContents(reqs[len(reqs)-1].Messages), "tool:")
	if got != want {
		t.Errorf("b's model call saw %q, want the whole history %q", got, want)
	}
	if ta, tb := a.turnsEnded(t), b.turnsEnded(t); ta != "1" || tb != "1" {
		t.Errorf("turns ended: a %s, b %s; want turn 1 on a and turn 2 on b", ta, tb)
	}
	if onA.Load() != 1 || onB.Load() != 0 {
		t.Errorf("the page ran %d tool calls on a and %d on b, want 1 and 0", onA.Load(), onB.Load())
	}
	wantNoFullID(t, "replica a", a, sess.SessionID)
	wantNoFullID(t, "replica b", b, sess.SessionID)
}

// TestKill9AfterAToolRanKeepsTheCall: a turn's model asks for two page tools at once; book
// answers, wait never does; the process is killed (-9) before the model's answer. Restarted
// on the same SQLite file, the resumed conversation holds the call that ran with its result
// and the call whose outcome is unknown, marked as such, and the model's next request carries
// both as assistant tool_calls with a tool message each, never two user messages in a row.
func TestKill9AfterAToolRanKeepsTheCall(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "byomcp.db")
	var fakeURL string
	var first, second *serveProc
	kill9AfterAToolRan(t, kill9Scenario{
		start: func(url string, tools ...procTool) *procPage {
			fakeURL = url
			first = startServe(t, url, "--store", db)
			return dialPage(t, first.url, tools...)
		},
		kill: func(*procPage) { first.kill9(t) },
		back: func(_ *procPage, tools ...procTool) *procPage {
			second = startServe(t, fakeURL, "--store", db)
			return dialPage(t, second.url, tools...)
		},
	})
	if got := second.turns(t, "interrupted"); got != "1" {
		t.Errorf("the restarted server counts %s interrupted turns, want 1", got)
	}
}

// kill9Scenario is where kill9AfterAToolRan runs: start opens the first page (the model at
// the URL given), kill kills the process serving that page, back opens the tab again
// where it comes back after the kill.
type kill9Scenario struct {
	start func(fakeURL string, tools ...procTool) *procPage
	kill  func(*procPage)
	back  func(killed *procPage, tools ...procTool) *procPage
}

// kill9AfterAToolRan runs the scenario of TestKill9AfterAToolRanKeepsTheCall in sc.
func kill9AfterAToolRan(t *testing.T, sc kill9Scenario) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		last := req.LastMessage()
		switch {
		case last.Role == "user" && last.Content == "book it":
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_book", Name: "book", Args: `{}`}, {ID: "call_wait", Name: "wait", Args: `{}`}}}
		case last.Role == "tool":
			return llmtest.Step{Text: "Unreachable: the process dies first."}
		default:
			return llmtest.Step{Text: "Answer-" + last.Content + "."}
		}
	}))
	t.Cleanup(fake.Close)
	var booked atomic.Int32
	book := procTool{name: "book", fn: func(context.Context) string {
		booked.Add(1)
		return "Booked: reference B-42."
	}}
	waiting := make(chan struct{}, 1)
	wait := procTool{name: "wait", fn: func(ctx context.Context) string {
		waiting <- struct{}{}
		<-ctx.Done() // until the server dies under it
		return "never"
	}}
	page := sc.start(fake.URL, book, wait)
	sess := page.session(wire.SessionParams{})
	go func() {
		var res wire.ChatResult
		_ = page.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "book it"}, &res)
	}()
	select {
	case <-waiting:
	case <-time.After(procWait):
		t.Fatal("the turn never called the page's wait tool")
	}
	// The book result is stored before its event is sent: seeing it, the store has it.
	seen := page.until(func(e procEvent) bool { return e.Type == wire.EventToolResult })
	sc.kill(page)
	<-page.peer.Done()
	seen = append(seen, drain(page.events)...)
	if booked.Load() != 1 {
		t.Fatalf("book ran %d times before the kill, want 1", booked.Load())
	}

	tab := sc.back(page, book, wait)
	last := lastSeen(seen)
	res := tab.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.SessionID != sess.SessionID {
		t.Fatalf("got %+v, want the session resumed", res)
	}
	var calls []string
	results := map[string]string{}
	for _, m := range res.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.ID)
		}
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if strings.Join(calls, ",") != "call_book,call_wait" {
		t.Errorf("the resumed messages hold the calls %q, want call_book,call_wait", calls)
	}
	if !strings.Contains(results["call_book"], "B-42") {
		t.Errorf("the resumed messages answer call_book with %q, want the page's result", results["call_book"])
	}
	if !strings.Contains(results["call_wait"], "unknown") {
		t.Errorf("the resumed messages answer call_wait with %q, want its outcome recorded as unknown", results["call_wait"])
	}
	if lastMsg := res.Messages[len(res.Messages)-1]; lastMsg.End == nil || lastMsg.End.StopReason != wire.StopError || !strings.Contains(lastMsg.End.Error, "interrupted") {
		t.Errorf("the turn's last message is %+v, want it marked interrupted", lastMsg)
	}
	seen = append(seen, tab.until(isTurnEnd)...)
	var unknown bool
	for _, e := range seen {
		unknown = unknown || e.Type == wire.EventToolResult && strings.Contains(e.Text, "unknown")
	}
	if !unknown {
		t.Error("the resumed tab got no tool_result saying call_wait's outcome is unknown")
	}
	wantSeqs(t, seen)

	if r := tab.chat("next"); r.Text != "Answer-next." {
		t.Fatalf("the next turn: got %+v", r)
	}
	reqs := fake.Requests()
	msgs := reqs[len(reqs)-1].Messages
	var shape []string
	for _, m := range msgs[1:] { // after the system prompt
		s := m.Role
		for _, tc := range m.ToolCalls {
			s += "+" + tc.ID
		}
		if m.ToolCallID != "" {
			s += ":" + m.ToolCallID
		}
		shape = append(shape, s)
	}
	if got, want := strings.Join(shape, " "), "user assistant+call_book+call_wait tool:call_book tool:call_wait user"; got != want {
		t.Errorf("the next model request is %q, want %q", got, want)
	}
	if booked.Load() != 1 {
		t.Errorf("book ran %d times, want once", booked.Load())
	}
}
