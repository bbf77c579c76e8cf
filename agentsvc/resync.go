package agentsvc

// Reading the store's state again: after a failed write, a take-back or a store that is not
// where the session left it (resync), and closing a turn the store still has as running
// (recoverInterrupted).

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// resync reads the session back from the store after a write failed, before a new turn
// writes: seq, messages and the log's tail become the store's; stored events the page has
// not seen (a write whose answer was lost may have landed) are sent to it; a turn the store
// still has as running is closed as interrupted. It does nothing when no write failed. It
// returns wire.ErrStoreDown while the store does not answer, wire.ErrTurnInProgress while a
// turn runs (its end is not written; the next turn resyncs).
func (ls *liveSession) resync() error {
	ls.mu.Lock()
	for {
		eff := ls.step(session.Command{Kind: session.ReadStart})
		if eff.Has(session.Noop) {
			ls.mu.Unlock()
			return nil
		}
		if !eff.Has(session.WaitInFlight) {
			break
		}
		ls.waitInFlightLocked() // one resync at a time: the other's outcome first
	}
	why, stored, running := ls.st.Stale, ls.st.Stage == session.Stored, ls.turn != nil
	ls.mu.Unlock()
	defer func() {
		ls.mu.Lock()
		ls.step(session.Command{Kind: session.ReadDone})
		ls.mu.Unlock()
	}()
	if running {
		return wire.ErrTurnInProgress
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	st := ls.hub.store
	s, err := st.Load(ctx, ls.id)
	switch {
	case errors.Is(err, store.ErrNotFound) && !stored:
		s = nil // never stored: nothing to read back, the next turn creates it
	case errors.Is(err, store.ErrNotFound):
		ls.goneFromStore()
		return wire.ErrSessionNotFound
	case err != nil:
		ls.log.Warn("the session store is still unavailable", zap.Error(err))
		return wire.ErrStoreDown
	}
	// A session whose creation landed but not its first events keeps its history in memory.
	adopt := s != nil && (stored || s.Seq > 0)
	var tail []store.Event
	if adopt {
		if tail, err = st.EventsAfter(ctx, ls.id, max(0, s.Seq-tailMax), 0); err != nil {
			ls.log.Warn("the session store is still unavailable", zap.Error(err))
			return wire.ErrStoreDown
		}
	}
	ls.mu.Lock()
	lost := adopt && s.Seq < ls.persisted
	had := ls.persisted
	if adopt {
		ls.seq, ls.persisted = s.Seq, s.Seq
		ls.messages = s.Messages
		ls.tail = tail
		for _, e := range tail {
			ls.sendLocked(e)
		}
	}
	ls.step(session.Command{Kind: session.Resynced, Found: s != nil, Adopted: adopt})
	ls.mu.Unlock()
	if lost {
		// The page has seen seqs the store no longer holds; sent back to agent/session, it
		// gets the store's seq and goes on from there.
		ls.log.Error("the session store lost events it had taken; the page is sent back to resume", zap.Int64("storeSeq", s.Seq), zap.Int64("hadSeq", had))
		ls.closeConn("the session store lost events; resume")
		return wire.ErrStoreDown
	}
	if adopt && s.ActiveTurn != "" {
		label := turnInterrupted
		ls.mu.Lock()
		if ls.countedCut == s.ActiveTurn { // its end here counted it, as an error
			label = ""
		}
		ls.mu.Unlock()
		ls.recoverInterrupted(s.ActiveTurn, "(This answer was interrupted: the conversation could not be saved. Please ask again.)", label)
		ls.waitFlushed(ctx)
		if ls.unsaved() {
			return wire.ErrStoreDown
		}
	}
	if why == session.TakenBack {
		ls.log.Debug("a session taken back re-read its state from the store", zap.Int64("seq", ls.persistedSeq()))
		return nil
	}
	ls.log.Info("the session store took writes again; the session re-read its state from it", zap.Int64("seq", ls.persistedSeq()))
	return nil
}

// recoverInterrupted ends a turn that was left open in the store (by a crash, or by a store
// that failed during it) as a turn that failed with text: an error event with it, turn_end
// {stopReason: error, interrupted}, and in the history the mark of a turn that added nothing
// (an assistant message with only end {stopReason: error, error: text}, never sent to the
// model), so a page shows the same from the events and from the stored messages.
//
// The calls the turn made are in the history already (loop.Turn.Record stores each with its
// event), with the results that came back; a call whose result never came is answered here
// as having an unknown outcome (a tool_result event with the same tool message), so the model
// sees every call it made and does not assume one that may have run did not. The turn is
// counted in byomcp_turns_total here, once, under label: turnInterrupted, or turnTakenOver
// when a replica takes over a session whose turn another replica was running (cutTurnLabel),
// or not ("") when this replica counted it already as it ended (a store outage: countedCut).
func (ls *liveSession) recoverInterrupted(turnID, text, label string) {
	none := ""
	ls.mu.Lock()
	for _, m := range unanswered(ls.messages, turnID) {
		ls.emitLocked(&wire.ToolResultEvent{EventHeader: wire.EventHeader{Type: wire.EventToolResult, TurnID: turnID}, CallID: m.ToolCallID, Name: m.Name, IsError: true, Text: outcomeUnknown},
			[]chat.Message{m}, nil)
	}
	ls.emitLocked(&wire.ErrorEvent{EventHeader: wire.EventHeader{Type: wire.EventError, TurnID: turnID}, Message: text, Retryable: true}, nil, nil)
	ls.emitLocked(&wire.TurnEndEvent{EventHeader: wire.EventHeader{Type: wire.EventTurnEnd, TurnID: turnID}, StopReason: wire.StopError, Text: text, Interrupted: true},
		markEnd(turnID, nil, wire.StopError, text), &none)
	ls.mu.Unlock()
	// Counted where it is closed: the process that ran it could not count it.
	if label != "" {
		ls.hub.metrics.turns.WithLabelValues(label).Inc()
	}
	ls.log.Info("marked an interrupted turn", zap.String("turn", turnID), zap.String("endedAs", label))
}

// goneFromStore handles a session that the store no longer has when it is read back: an
// operator deleted it (this replica heard of it: Forget, here or through another replica),
// and it goes as Forget has it go (its tab told "conversation deleted"); or the store lost it
// (expired, or a store that lost data): its tab is sent back to start a new one.
func (ls *liveSession) goneFromStore() {
	srv := ls.hub.srv
	if srv.deleted.Has(ls.id, time.Now()) {
		ls.log.Info("the session was deleted by the operator; its tab is told so")
		go srv.forgetHere(ls.id)
		return
	}
	ls.log.Error("the session is gone from the store (expired, or lost by the store); its socket is closed so that the page starts a new one")
	ls.closeConn("the session is gone from the store")
}
