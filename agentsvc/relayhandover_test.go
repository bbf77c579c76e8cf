package agentsvc

// The relay's second golden scenario (relayHandoverHeader, testdata/relay-handover.golden): the
// kinds the first one (relay.golden) leaves out, hello, ping, superseded and detach, each made
// to happen by the scenario rather than by the clock or a race. Recorded, validated, normalised
// and compared as the first (relaytranscript_test.go), but for hello: its probe runs every
// relayProbe while a routed call runs, so the scenario holds a routed call until one probe is
// answered (at least one, then), and normaliseRelay keeps each distinct hello line once.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

const relayHandoverGolden = "testdata/relay-handover.golden"

const relayHandoverHeader = `# The relay's second golden transcript: every message on the relay's channels while two
# replicas (replica-a holds the session and runs its turn; the tab's socket moves to replica-b)
# run this scenario: the tab resumes its running turn on b (attach); a calls a page tool through
# b (call) that the page holds until a has asked b whether b still serves the page (hello, every
# 2 s while a routed call runs); meanwhile a second tab of the conversation opens on a, whose
# turn's page is b's: a asks b whether that page's socket is alive (ping: alive), and the second
# tab gets a fork. The held call answers; a lists the page's tools for its next model call
# (tools) and calls a tool whose result says the page navigates away (call, leaving); the next
# page lands on a and takes the session there (a tells b: superseded), and b, its proxy ended,
# tells a its socket is gone (detach). The turn ends on a with the new page.
# How many hello probes go out depends on the clock: each hello and its reply are written with
# id 0, once. One line per message: the channel, then the message. Recorded by
# go test ./agentsvc -run TestRelayTranscript -update; the rules are at the top of
# agentsvc/relaytranscript_test.go.
`

// heard tells whether a message of kind was recorded.
func (rec *busRecorder) heard(kind string) bool {
	for _, l := range rec.all() {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) == nil && m.Kind == kind {
			return true
		}
	}
	return false
}

// helloAnswered tells whether a hello request and its reply were recorded.
func (rec *busRecorder) helloAnswered() bool {
	lines := rec.all()
	asked := map[reqKey]bool{}
	for _, l := range lines {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) == nil && m.Kind == wire.RelayHello {
			asked[reqKey{m.From, m.ID}] = true
		}
	}
	for _, l := range lines {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) == nil && m.Kind == wire.RelayReply && asked[reqKey{strings.TrimPrefix(l.channel, "r:"), m.ID}] {
			return true
		}
	}
	return false
}

// resultOf reads p's events up to the tool_result of call id.
func resultOf(p *fakePage, id string) event {
	p.t.Helper()
	for i := 0; i < 10000; i++ {
		if e := p.nextEvent(); e.Type == wire.EventToolResult && e.CallID == id {
			return e
		}
	}
	p.t.Fatalf("no tool_result of %s in 10000 events", id)
	return event{}
}

func relayHandoverTranscript(t *testing.T, open func() store.Store, update bool) {
	held, release := make(chan struct{}, 1), make(chan struct{})
	hold := pageTestTool{tool: wire.PageTool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(ctx context.Context, _ map[string]any) (any, error) {
			held <- struct{}{}
			select {
			case <-release:
				return "held, then let go", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
	leave := pageTestTool{tool: wire.PageTool{Name: "leave", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(context.Context, map[string]any) (any, error) {
			return navigatingResult("off to the next page"), nil
		}}
	gate, last := make(chan struct{}), make(chan struct{})
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			<-gate
			return &llm.Response{ToolCalls: []chat.ToolCall{call("h1", "hold", `{}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n1", "leave", `{}`)}}, nil
		case 2:
			<-last
			return &llm.Response{Text: "Answered on the next page."}, nil
		}
		return &llm.Response{Text: "unreachable"}, nil
	}}
	_, a, b := twoReplicasVia(t, model, nil, func(string, store.Store) store.Store { return open() })
	rec := recordRelay(t, open())
	// A test that fails half-way lets the model and the page go before the replicas shut down.
	openGate := sync.OnceFunc(func() { close(gate) })
	openLast := sync.OnceFunc(func() { close(last) })
	releaseHold := sync.OnceFunc(func() { close(release) })
	t.Cleanup(openGate)
	t.Cleanup(openLast)
	t.Cleanup(releaseHold)

	first := openPage(t, a, testOrigin, hold, leave)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("hold on, then leave") }()
	seen := first.eventsUntil(wire.EventTurnStart)
	// The turn's first model call is offered the tools of the page on a (not listed through b).
	waitFor(t, "the first model call", func() bool { return len(model.requests()) > 0 })
	dropSocket(first, false)
	onB := openPage(t, b, testOrigin, hold, leave)
	last0 := lastSeqOf(seen)
	if res := onB.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last0}); res.Running == nil {
		t.Fatalf("got %+v, want the running turn served on b", res)
	}
	openGate()
	select {
	case <-held:
	case <-time.After(waitLimit):
		t.Fatal("the held tool never started on the page on b")
	}

	// A second tab while the turn's page is b's socket, alive: a pings it, and the tab forks.
	dup := openPage(t, a, testOrigin, hold, leave)
	if res := dup.session(wire.SessionParams{SessionID: sess.SessionID}); !res.Forked || res.SessionID == sess.SessionID {
		t.Fatalf("a second tab on a while b's socket is alive: got %+v, want a fork", res)
	}
	// The call is held until a's probe of it is answered (relayProbe, 2 s, after it began).
	if !pollUntil(time.Now().Add(waitLimit+relayProbe), rec.helloAnswered) {
		t.Fatalf("no hello answered while the routed call ran; recorded:\n%s", strings.Join(normaliseRelay(rec.all(), true), "\n"))
	}
	releaseHold()
	if e := resultOf(onB, "h1"); e.IsError {
		t.Fatalf("the held call's result: %+v", e)
	}
	// Once the page on b has the result of leave, a has it: it knows the page navigates away.
	if e := resultOf(onB, "n1"); e.IsError {
		t.Fatalf("the leave call's result: %+v", e)
	}

	// The next page lands on a: b's page is leaving, so it takes the session (no ping, no fork)
	// and a tells b, which sends its page back and tells a its socket is gone.
	next := openPage(t, a, testOrigin, hold, leave)
	if res := next.session(wire.SessionParams{SessionID: sess.SessionID}); !res.Resumed || res.Forked || res.Running == nil {
		t.Fatalf("the next page on a: got %+v, want the session resumed with its turn running", res)
	}
	onB.waitSentBack()
	openLast()
	if end := next.eventsUntil(wire.EventTurnEnd); end[len(end)-1].StopReason != wire.StopEnd || end[len(end)-1].Text != "Answered on the next page." {
		t.Fatalf("got turn_end %+v, want the turn answered on the next page", end[len(end)-1])
	}
	settled := func() bool {
		open, _ := rec.open()
		return len(open) == 0 && rec.heard(wire.RelaySuperseded) && rec.heard(wire.RelayDetach)
	}
	if !pollUntil(time.Now().Add(waitLimit), settled) {
		open, _ := rec.open()
		t.Fatalf("timed out waiting for every request answered (open: %v), the superseded and the detach; recorded:\n%s", open, strings.Join(normaliseRelay(rec.all(), true), "\n"))
	}
	checkRelayGolden(t, rec.all(), relayHandoverGolden, relayHandoverHeader, update, true)
}
