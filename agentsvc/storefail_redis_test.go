package agentsvc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// TestRedisOutageLosesNothingTheVisitorSawDone plays issue 11's defect 4 with a real
// redis-server (append-only file, fsync on every write) under two replicas: redis-server is
// killed in the middle of a turn, a turn is asked for while it is down, it comes back on the
// same port, a turn runs, and the page moves to the other replica. Every turn the visitor
// saw as done is stored, the log's seqs go up by one with no gap or double, and the page saw
// exactly the log.
func TestRedisOutageLosesNothingTheVisitorSawDone(t *testing.T) {
	rp := storetest.RedisWithAOF(t)
	open := func() store.Store {
		st, err := store.OpenRedis(t.Context(), rp.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	stA, stB := open(), open()
	model := newStepModel()
	a := newQuietServer(t, model, func(c *Config) { c.Store = stA; c.OwnerID = "replica-a" })
	b := newQuietServer(t, textModel("answered on b"), func(c *Config) { c.Store = stB; c.OwnerID = "replica-b" })

	page := openPage(t, a, testOrigin)
	sess := page.session(wire.SessionParams{})
	var log turnLog
	done := map[string]string{}

	model.hold <- struct{}{}
	r1, err := page.chat("one")
	if err != nil || r1.StopReason != wire.StopEnd {
		t.Fatalf("turn 1: got %+v, %v; want it to end", r1, err)
	}
	done[r1.TurnID] = r1.Text
	log.add(page.eventsUntil(wire.EventTurnEnd)...)

	// Turn 2: redis-server dies while the model streams.
	res2 := make(chan wire.ChatResult, 1)
	go func() {
		r, err := page.chat("two")
		if err != nil {
			t.Errorf("turn 2: %v", err)
		}
		res2 <- r
	}()
	log.add(page.eventsUntil(wire.EventTextDelta)...)
	rp.Kill()
	model.hold <- struct{}{}
	r2 := <-res2
	if r2.StopReason != wire.StopError || r2.Text != unsavedText {
		t.Errorf("turn 2: got stopReason %q text %q, want error and %q", r2.StopReason, r2.Text, unsavedText)
	}
	log.drain(page)
	if len(log.unlogged) != 1 || log.unlogged[0].Type != wire.EventError || log.unlogged[0].TurnID != r2.TurnID {
		t.Errorf("got events without seq %+v, want the error of turn 2", log.unlogged)
	}

	// While it is down, a turn is refused with a clear error.
	if _, err := page.chat("while down"); !errors.Is(err, wsrpc.NewError(wire.CodeStoreDown, "")) {
		t.Errorf("a turn while redis-server is down: got %v, want error %d", err, wire.CodeStoreDown)
	}

	rp.Restart()
	model.hold <- struct{}{}
	r3, err := page.chat("three")
	if err != nil || r3.StopReason != wire.StopEnd {
		t.Fatalf("turn 3 after the restart: got %+v, %v; want it to end", r3, err)
	}
	done[r3.TurnID] = r3.Text
	log.add(page.eventsUntil(wire.EventTurnEnd)...)
	log.drain(page)

	// The page moves to replica b (a reload through the load balancer).
	dropSocket(page, true)
	waitFor(t, "replica a to let the session go", func() bool { return !isLive(a, sess.SessionID) })
	moved := openPage(t, b, testOrigin)
	last := lastSeqOf(log.seen)
	res := moved.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last})
	if !res.Resumed || res.Forked || res.Seq != last {
		t.Fatalf("resume on b: got resumed %v forked %v seq %d, want resumed at seq %d", res.Resumed, res.Forked, res.Seq, last)
	}
	if got := roleList(res.Messages); got != "user,assistant,user,assistant,user,assistant" {
		t.Errorf("b resumed with %s, want turn 1, turn 2 closed as interrupted, and turn 3", got)
	}
	r4, err := moved.chat("four")
	if err != nil || r4.Text != "answered on b" {
		t.Fatalf("turn 4 on b: got %+v, %v", r4, err)
	}
	done[r4.TurnID] = r4.Text
	log.add(moved.eventsUntil(wire.EventTurnEnd)...)

	checkNothingLostOrDoubled(t, log.seen, storedEvents(t, stB, sess.SessionID))
	checkStoredTurns(t, stB, sess.SessionID, done)
	s, err := stB.Load(context.Background(), sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Messages[3]; m.TurnID != r2.TurnID || m.End == nil || m.End.StopReason != wire.StopError || !strings.Contains(m.End.Error, "interrupted") {
		t.Errorf("turn 2 is stored as %+v, want it closed as interrupted", s.Messages[2:4])
	}
}
