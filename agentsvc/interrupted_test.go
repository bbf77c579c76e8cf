package agentsvc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/console"
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
