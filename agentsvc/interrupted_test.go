package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/console"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// crashLeft stores session id as a process killed (-9) in the middle of turn t1 leaves it:
// the visitor's message, the model's response asking for two calls (c1, c2), c1's result
// (loop.Turn.Record stores each with its event), c2 sent to the page and never answered, no
// turn_end, and the turn still active.
func crashLeft(t *testing.T, st store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	if err := st.Create(ctx, &store.Session{ID: id, Origin: testOrigin}); err != nil {
		t.Fatal(err)
	}
	h := func(typ string) wire.EventHeader { return wire.EventHeader{SessionID: id, TurnID: "t1", Type: typ} }
	evs := []wire.Event{
		&wire.TurnStartEvent{EventHeader: h(wire.EventTurnStart), Text: "book the 9:00 table"},
		&wire.ToolCallEvent{EventHeader: h(wire.EventToolCall), CallID: "c1", Name: "echo", Arguments: json.RawMessage(`{"text":"book"}`)},
		&wire.ToolCallEvent{EventHeader: h(wire.EventToolCall), CallID: "c2", Name: "echo", Arguments: json.RawMessage(`{"text":"pay"}`)},
		&wire.ToolResultEvent{EventHeader: h(wire.EventToolResult), CallID: "c1", Name: "echo", Text: "echo: book"},
	}
	active := "t1"
	b := store.Batch{ActiveTurn: &active, Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "book the 9:00 table", TurnID: "t1"},
		{Role: chat.RoleAssistant, TurnID: "t1", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "echo", Arguments: `{"text":"book"}`}, {ID: "c2", Name: "echo", Arguments: `{"text":"pay"}`}}},
		{Role: chat.RoleTool, TurnID: "t1", ToolCallID: "c1", Name: "echo", Content: "echo: book"},
	}}
	for i, ev := range evs {
		ev.Header().Seq = int64(i + 1)
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Events = append(b.Events, store.Event{Seq: int64(i + 1), Data: data})
	}
	if err := st.Append(ctx, id, b); err != nil {
		t.Fatal(err)
	}
}

// TestConsoleShowsAnInterruptedTurnOnce: a conversation a crash cut in the middle of a turn
// (one call answered, one never) is resumed, which closes the turn as interrupted
// (recoverInterrupted); the console's transcript shows the turn once as interrupted, with
// both calls: the one that ran with its result, the other with its unknown outcome. The
// console printed the interrupted line twice before: from the error event and again as the
// turn's answer (turn_end's text).
func TestConsoleShowsAnInterruptedTurnOnce(t *testing.T) {
	ts := newTestServer(t, textModel("later"), nil)
	id := randomID(16)
	crashLeft(t, ts.store, id)
	page := openPage(t, ts, testOrigin, echoTool())
	if res := page.session(wire.SessionParams{SessionID: id}); !res.Resumed {
		t.Fatalf("got %+v, want the session resumed", res)
	}
	waitFor(t, "the turn to be closed in the store", func() bool {
		s, err := ts.store.Load(context.Background(), id)
		return err == nil && s.ActiveTurn == ""
	})

	rec := consoleOf(t, ts)("GET", "/console/api/conversations/"+id)
	var tr console.Transcript
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil || len(tr.TurnList) != 1 {
		t.Fatalf("transcript: HTTP %d %s, want one turn", rec.Code, rec.Body)
	}
	turn := tr.TurnList[0]
	if !turn.Interrupted || turn.StopReason != wire.StopError {
		t.Errorf("got turn interrupted=%v stopReason=%q, want interrupted, error", turn.Interrupted, turn.StopReason)
	}
	const line = "This answer was interrupted"
	shown := strings.Count(turn.Answer, line)
	for _, e := range turn.Errors {
		shown += strings.Count(e, line)
	}
	if shown != 1 {
		t.Errorf("the interrupted line is shown %d times (errors %q, answer %q), want once", shown, turn.Errors, turn.Answer)
	}
	if len(turn.Calls) != 2 {
		t.Fatalf("got calls %+v, want c1 and c2", turn.Calls)
	}
	if c := turn.Calls[0]; c.ID != "c1" || c.Outcome != "ok" || c.Result != "echo: book" {
		t.Errorf("got call %+v, want c1 ran with its result", c)
	}
	if c := turn.Calls[1]; c.ID != "c2" || c.Outcome != "error" || !strings.Contains(c.Result, "outcome of this call is unknown") {
		t.Errorf("got call %+v, want c2 answered as of unknown outcome", c)
	}
	if got := strings.Join(tr.Outcomes, ","); got != "error,interrupted" {
		t.Errorf("got outcomes %q, want error,interrupted", got)
	}
}

// turnsByEnd returns byomcp_turns_total's samples by stop_reason (those above 0).
func turnsByEnd(t *testing.T, s *Server) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for series, v := range scrape(t, s) {
		if r, ok := strings.CutPrefix(series, `byomcp_turns_total{stop_reason="`); ok && v > 0 {
			out[strings.TrimSuffix(r, `"}`)] = v
		}
	}
	return out
}

// deadStore is a replica's store that stops answering once the replica is dead (a kill -9
// seen from outside: its claims are no longer renewed, it writes nothing more).
type deadStore struct {
	store.Store
	dead atomic.Bool
}

var errReplicaDead = errors.New("test: this replica is dead")

func (d *deadStore) Unwrap() store.Store { return d.Store }

func (d *deadStore) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if d.dead.Load() {
		return false, "", errReplicaDead
	}
	return d.Store.Claim(ctx, id, owner, ttl)
}

func (d *deadStore) Append(ctx context.Context, id string, b store.Batch) error {
	if d.dead.Load() {
		return errReplicaDead
	}
	return d.Store.Append(ctx, id, b)
}

func (d *deadStore) Release(ctx context.Context, id, owner string) error {
	if d.dead.Load() {
		return errReplicaDead
	}
	return d.Store.Release(ctx, id, owner)
}

// TestTurnsCountedByHowTheyEnded: each way a turn ends increments its own
// byomcp_turns_total{stop_reason} once, and no other: answered (end), cancelled by the
// visitor, stopped by a guard (max_iterations), failed (error), cut by a crash and closed
// when its session is resumed (interrupted), and cut by the death of the replica running it
// while a page on this replica served it, closed when this replica takes the session over
// (taken_over; before, it was counted as interrupted).
func TestTurnsCountedByHowTheyEnded(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
		run  func(t *testing.T) *Server // returns the server whose /metrics counts the turn
	}{
		{"answered", wire.StopEnd, func(t *testing.T) *Server {
			ts := newTestServer(t, textModel("hi"), nil)
			p := newFakePage(t, ts, testOrigin)
			p.session(wire.SessionParams{})
			if res, err := p.chat("hello"); err != nil || res.StopReason != wire.StopEnd {
				t.Fatalf("got %+v %v, want an answer", res, err)
			}
			return ts.Server
		}},
		{"cancelled", wire.StopCancelled, func(t *testing.T) *Server {
			model, fake := openAIModel(t, llmtest.Script(llmtest.Step{Stall: true}))
			ts := newTestServer(t, model, nil)
			p := newFakePage(t, ts, testOrigin)
			p.session(wire.SessionParams{})
			done := make(chan wire.ChatResult, 1)
			go func() {
				res, _ := p.chat("hello")
				done <- res
			}()
			waitFor(t, "the model call", func() bool { return len(fake.Requests()) == 1 })
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if err := p.peer.Call(ctx, wire.MethodAgentCancel, wire.CancelParams{}, &wire.CancelResult{}); err != nil {
				t.Fatalf("agent/cancel: %v", err)
			}
			if res := <-done; res.StopReason != wire.StopCancelled {
				t.Fatalf("got %+v, want cancelled", res)
			}
			return ts.Server
		}},
		{"guard", wire.StopMaxIterations, func(t *testing.T) *Server {
			always := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
				return &llm.Response{ToolCalls: []chat.ToolCall{call(fmt.Sprintf("c%d", n), "echo", `{"text":"again"}`)}}, nil
			}}
			ts := newTestServer(t, always, func(c *Config) { c.Limits = loop.Limits{MaxModelCalls: 2} })
			p := newFakePage(t, ts, testOrigin, echoTool())
			p.session(wire.SessionParams{})
			if res, err := p.chat("loop"); err != nil || res.StopReason != wire.StopMaxIterations {
				t.Fatalf("got %+v %v, want max_iterations", res, err)
			}
			return ts.Server
		}},
		{"error", wire.StopError, func(t *testing.T) *Server {
			model, _ := openAIModel(t, llmtest.Script(llmtest.Step{Status: 400, Message: "the context window is full"}))
			ts := newTestServer(t, model, nil)
			p := newFakePage(t, ts, testOrigin)
			p.session(wire.SessionParams{})
			if res, err := p.chat("hello"); err != nil || res.StopReason != wire.StopError {
				t.Fatalf("got %+v %v, want error", res, err)
			}
			return ts.Server
		}},
		{"interrupted", turnInterrupted, func(t *testing.T) *Server {
			ts := newTestServer(t, textModel("later"), nil)
			id := randomID(16)
			crashLeft(t, ts.store, id)
			p := openPage(t, ts, testOrigin, echoTool())
			if res := p.session(wire.SessionParams{SessionID: id}); !res.Resumed {
				t.Fatalf("got %+v, want the session resumed", res)
			}
			return ts.Server
		}},
		{"taken over", turnTakenOver, func(t *testing.T) *Server {
			gate, model := gatedText("never said", "later")
			var onA *deadStore
			_, a, b := twoReplicasVia(t, model, func(c *Config) { c.ClaimTTL = 300 * time.Millisecond }, func(replica string, shared store.Store) store.Store {
				if replica != "replica-a" {
					return nil
				}
				onA = &deadStore{Store: shared}
				return onA
			})
			t.Cleanup(func() { close(gate) })    // before the replicas shut down (cleanups run last first)
			sess, second := proxiedTurn(t, a, b) // the turn runs on a, its page is on b
			onA.dead.Store(true)                 // a dies: no more claim renewals, nothing written
			a.relay.dead.Store(true)
			a.relay.close()
			evs := second.eventsUntil(wire.EventTurnEnd)
			if end := evs[len(evs)-1]; !end.Interrupted || end.TurnID == "" {
				t.Fatalf("got turn_end %+v, want the turn closed as interrupted", end)
			}
			if s, err := b.store.Load(context.Background(), sess.SessionID); err != nil || s.ActiveTurn != "" {
				t.Fatalf("got %+v %v, want the session stored with no turn running", s, err)
			}
			return b.Server
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.run(t)
			waitFor(t, "the turn to be counted", func() bool { return len(turnsByEnd(t, s)) > 0 })
			if got := turnsByEnd(t, s); len(got) != 1 || got[tc.want] != 1 {
				t.Errorf("byomcp_turns_total: got %v, want {%s: 1}", got, tc.want)
			}
		})
	}
}
