package agentsvc

import (
	"context"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// TestSessionMessagesMarkHowTurnsEnded: a turn whose model call failed, a turn stopped before
// the model said anything and a turn that answered; a page that opens the session afterwards
// finds in the stored messages how each of the first two ended (the error it was shown,
// "cancelled"), on the turn's last message, and nothing on the answered one. The mark of the
// stopped turn (an assistant message with no content) never reaches the model.
func TestSessionMessagesMarkHowTurnsEnded(t *testing.T) {
	model, fake := openAIModel(t, llmtest.Script(
		llmtest.Step{Status: 400, Message: "the context window is full"},
		llmtest.Step{Stall: true},
		llmtest.Step{Text: "All good."},
	))
	ts := newTestServer(t, model, nil)
	const origin = "http://localhost:3000"
	p := newFakePage(t, ts, origin)
	sess := p.session(wire.SessionParams{})

	res, err := p.chat("first")
	if err != nil || res.StopReason != wire.StopError {
		t.Fatalf("first turn: %+v, %v; want stopReason error", res, err)
	}
	var shown string
	for _, e := range p.eventsUntil(wire.EventTurnEnd) {
		if e.Type == wire.EventError {
			shown = e.Message
		}
	}
	if shown == "" {
		t.Fatal("the failed turn sent no error event")
	}

	done := make(chan wire.ChatResult, 1)
	go func() {
		res, err := p.chat("second")
		if err != nil {
			t.Errorf("second turn: %v", err)
		}
		done <- res
	}()
	waitFor(t, "the second model call", func() bool { return len(fake.Requests()) == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var cr wire.CancelResult
	if err := p.peer.Call(ctx, wire.MethodAgentCancel, wire.CancelParams{}, &cr); err != nil {
		t.Fatalf("agent/cancel: %v", err)
	}
	if res := <-done; res.StopReason != wire.StopCancelled {
		t.Fatalf("second turn: stopReason %q, want cancelled", res.StopReason)
	}
	p.eventsUntil(wire.EventTurnEnd)

	if res, err := p.chat("third"); err != nil || res.StopReason != wire.StopEnd {
		t.Fatalf("third turn: %+v, %v", res, err)
	}
	p.eventsUntil(wire.EventTurnEnd)

	// What the model was sent for the third turn: the stopped turn's user message, no empty
	// assistant message after it.
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d model requests, want 3", len(reqs))
	}
	for i, m := range reqs[2].Messages {
		if m.Role == chat.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Errorf("model request message %d is an empty assistant message: %s", i, m.Raw)
		}
	}

	// Another page (a reload) opens the session.
	p2 := newFakePage(t, ts, origin)
	got := p2.session(wire.SessionParams{SessionID: sess.SessionID})
	users := map[string]string{} // turn id -> its user text
	last := map[string]int{}     // turn id -> index of its last message
	for i, m := range got.Messages {
		if m.Role == chat.RoleUser {
			users[m.TurnID] = m.Content
		}
		last[m.TurnID] = i
	}
	ends := map[string]*chat.TurnEnd{} // by the turn's user text
	for i, m := range got.Messages {
		if m.End != nil && last[m.TurnID] != i {
			t.Errorf("message %d of turn %q has an end mark but is not the turn's last", i, users[m.TurnID])
		}
	}
	for id, i := range last {
		ends[users[id]] = got.Messages[i].End
	}
	if e := ends["first"]; e == nil || e.StopReason != wire.StopError || e.Error != shown {
		t.Errorf("first turn's end: got %+v, want {error %q}", e, shown)
	}
	if e := ends["second"]; e == nil || e.StopReason != wire.StopCancelled || e.Error != "" {
		t.Errorf("second turn's end: got %+v, want {cancelled}", e)
	}
	if e, ok := ends["third"]; !ok || e != nil {
		t.Errorf("third turn's end: got %+v (present %v), want none", e, ok)
	}
}
