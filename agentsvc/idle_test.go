package agentsvc

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// liveState is what a live session holds in memory, read under its lock.
func liveState(ts *testServer, id string) (ok, cold bool, messages, tail int) {
	ts.hub.mu.Lock()
	ls := ts.hub.live[id]
	ts.hub.mu.Unlock()
	if ls == nil {
		return false, false, 0, 0
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return true, ls.st.Cold(), len(ls.messages), len(ls.tail)
}

// An open tab between turns holds no copy of its conversation or of its recent events (the
// store has them); the next turn, a resume with replay, a reload and a duplicated tab still
// get the whole history from the store.
func TestIdleSessionLeavesItsHistoryToTheStore(t *testing.T) {
	model := echoUserText()
	ts := newQuietServer(t, model, nil)
	a := openPage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	if _, err := a.chat("first"); err != nil {
		t.Fatal(err)
	}
	firstEvents := a.eventsUntil(wire.EventTurnEnd)
	// The chat's answer is sent once the turn is over: the session is cold by then.
	if ok, cold, msgs, tail := liveState(ts, sess.SessionID); !ok || !cold || msgs != 0 || tail != 0 {
		t.Fatalf("after a turn: live %v, cold %v, %d messages and %d events in memory; want a cold live session holding none", ok, cold, msgs, tail)
	}

	// The next turn gets the whole history from the store.
	if _, err := a.chat("second"); err != nil {
		t.Fatal(err)
	}
	a.eventsUntil(wire.EventTurnEnd)
	reqs := model.requests()
	last := reqs[len(reqs)-2] // the second turn's first model call
	if got := roleList(last.Messages[1:]); got != "user,assistant,tool,assistant,user" || last.Messages[1].Content != "first" {
		t.Errorf("the second turn's model saw %s, want the first turn then the new message", got)
	}
	if _, cold, msgs, _ := liveState(ts, sess.SessionID); !cold || msgs != 0 {
		t.Errorf("after the second turn: cold %v, %d messages; want cold and none", cold, msgs)
	}

	// A resume with replay while another socket holds it idle: messages and events from the store.
	dropSocket(a, true)
	b := openPage(t, ts, testOrigin, echoTool())
	after := lastSeqOf(firstEvents)
	res := b.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &after})
	if !res.Resumed || roleList(res.Messages) != "user,assistant,tool,assistant,user,assistant,tool,assistant" {
		t.Fatalf("resume: got resumed %v, history %s; want the two turns", res.Resumed, roleList(res.Messages))
	}
	replayed := b.eventsUntil(wire.EventTurnEnd)
	if replayed[0].Seq != after+1 || lastSeqOf(replayed) != res.Seq {
		t.Errorf("replay after %d: got seqs %d..%d, want %d..%d", after, replayed[0].Seq, lastSeqOf(replayed), after+1, res.Seq)
	}
	if got := types(replayed); strings.Join(got, ",") != "turn_start,tool_call,tool_result,text_delta,turn_end" {
		t.Errorf("replayed %v, want the second turn", got)
	}
	waitFor(t, "the resumed session to be cold again", func() bool {
		_, cold, msgs, tail := liveState(ts, sess.SessionID)
		return cold && msgs == 0 && tail == 0
	})

	// A duplicated tab while b holds the session idle: a fork with the history.
	c := openPage(t, ts, testOrigin, echoTool())
	fork := c.session(wire.SessionParams{SessionID: sess.SessionID})
	if !fork.Forked || roleList(fork.Messages) != "user,assistant,tool,assistant,user,assistant,tool,assistant" {
		t.Errorf("duplicated tab: got forked %v, history %s; want a fork with the two turns", fork.Forked, roleList(fork.Messages))
	}

	// b's next turn, then the store: nothing lost or doubled.
	if _, err := b.chat("third"); err != nil {
		t.Fatal(err)
	}
	s, err := ts.store.Load(context.Background(), sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := roleList(s.Messages); got != strings.Repeat("user,assistant,tool,assistant,", 2)+"user,assistant,tool,assistant" {
		t.Errorf("stored history %s, want three turns", got)
	}
	if got := []string{s.Messages[0].Content, s.Messages[4].Content, s.Messages[8].Content}; strings.Join(got, ",") != "first,second,third" {
		t.Errorf("stored user messages %v, want first, second, third", got)
	}
}

// A cold session whose store no longer holds it as it was left (here: events the store lost)
// is read again from the store before its next turn, as after a failed write: the page is
// sent back to resume, and the turn after that runs on the store's history.
func TestColdSessionStoreChangedMeanwhile(t *testing.T) {
	model := echoUserText()
	var st store.Store
	ts := newQuietServer(t, model, func(c *Config) { st = c.Store })
	a := openPage(t, ts, testOrigin, echoTool())
	sess := a.session(wire.SessionParams{})
	if _, err := a.chat("first"); err != nil {
		t.Fatal(err)
	}
	if _, cold, _, _ := liveState(ts, sess.SessionID); !cold {
		t.Fatal("the session is not cold after its turn")
	}
	// Another writer (a replica that should not have) appends a turn behind the session's back.
	ctx := context.Background()
	s, err := st.Load(ctx, sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	extra := []chat.Message{{Role: chat.RoleUser, Content: "elsewhere", TurnID: "t-x"}, {Role: chat.RoleAssistant, Content: "there", TurnID: "t-x"}}
	ev := store.Event{Seq: s.Seq + 1, Data: []byte(`{"turnId":"t-x","seq":` + strconv.FormatInt(s.Seq+1, 10) + `,"type":"turn_end","stopReason":"end","text":"there"}`)}
	if err := st.Append(ctx, sess.SessionID, store.Batch{Events: []store.Event{ev}, Messages: extra}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.chat("second"); err != nil {
		t.Fatal(err)
	}
	reqs := model.requests()
	hist := reqs[len(reqs)-2].Messages[1:]
	if got := roleList(hist); got != "user,assistant,tool,assistant,user,assistant,user" || hist[4].Content != "elsewhere" {
		t.Errorf("the next turn's model saw %s, want the store's history (with the other writer's turn)", got)
	}
}
