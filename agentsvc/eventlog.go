package agentsvc

// A session's event log: events numbered by emit, written to the store by one flusher, sent
// to the page only once stored; failed writes and resync.

import (
	"context"
	"errors"
	"fmt"
	"time"

	fastjson "github.com/segmentio/encoding/json"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// unsavedText is the answer of a turn whose events the store did not take.
const unsavedText = "The conversation could not be saved (the session store is unavailable), so this answer was not kept. Please try again in a moment."

// errUnsaved is the cause a turn is cancelled with when one of its writes failed.
var errUnsaved = errors.New("the conversation could not be saved")

// errDeleted is the cause a turn is cancelled with when the operator deletes its
// conversation (Server.Forget): the turn ends as cancelled, and a write the store then
// refuses because the session is gone (store.ErrNotFound) is the deletion, not a store that
// fails.
var errDeleted = errors.New("the conversation was deleted by the operator")

// How the flusher writes: a failure that may be transient (a store restarting, a network
// blip) is retried, 50 ms apart doubling, up to writeAttempts attempts in all and no new
// attempt once writeRetryFor has passed since the first (a store client may retry inside
// one call: go-redis takes about 2 s to give up on a server that refuses connections);
// each attempt within writeTimeout. Then the write has failed for good.
const (
	writeAttempts = 5
	writeRetryFor = 2 * time.Second
	writeTimeout  = 10 * time.Second
)

// emit numbers an event and queues it, with the messages and turn state that go with it,
// for the store; the flusher sends it to the page once it is stored. After a write failed,
// emit drops everything until resync: the turn is being cancelled, and what it still emits
// could not be stored in order anyway.
func (ls *liveSession) emit(ev wire.Event, msgs []chat.Message, activeTurn *string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.emitLocked(ev, msgs, activeTurn)
}

// maxMergedDelta bounds the text of one text_delta made of several (mergeTextLocked).
const maxMergedDelta = 8 << 10

// emitLocked is emit with ls.mu held; it returns the event's seq (0 when it was dropped).
func (ls *liveSession) emitLocked(ev wire.Event, msgs []chat.Message, activeTurn *string) int64 {
	if ls.st.MustResync() {
		return 0
	}
	d, isText := ev.(*wire.TextDeltaEvent)
	isText = isText && len(msgs) == 0 && activeTurn == nil && !ls.hub.cfg.TextDeltaPerChunk
	if isText && ls.mergeTextLocked(d) {
		return ls.seq
	}
	ls.sealTextLocked()
	ls.seq++
	h := ev.Header()
	h.Seq = ls.seq
	h.SessionID = ""
	h.Time = time.Now().UnixMilli()
	if isText { // encoded once no more text can join it (sealTextLocked)
		c := *d
		ls.pendingText = &c
		ls.pendingDelta = append(ls.pendingDelta[:0], d.Delta...)
		ls.pending.Events = append(ls.pending.Events, store.Event{Seq: ls.seq})
	} else {
		ls.pending.Events = append(ls.pending.Events, store.Event{Seq: ls.seq, Data: ls.encodeLocked(ev)})
	}
	ls.pending.Messages = append(ls.pending.Messages, msgs...)
	if activeTurn != nil {
		t := *activeTurn
		ls.pending.ActiveTurn = &t
	}
	if ls.step(session.Command{Kind: session.Write}).Has(session.StartWriter) {
		ls.flushed = make(chan struct{})
		go ls.flushContained()
	}
	return ls.seq
}

// encodeLocked is an event's JSON as stored and sent.
func (ls *liveSession) encodeLocked(ev wire.Event) []byte {
	data, err := fastjson.Marshal(ev)
	if err != nil {
		ls.log.Error("encoding event", zap.Error(err))
		data = []byte(fmt.Sprintf(`{"seq":%d,"type":"error","message":"internal error","retryable":false}`, ev.Header().Seq))
	}
	return data
}

// mergeTextLocked appends d's text to the text_delta that ends the batch waiting for the
// flusher, when there is one of the same turn: the two become one event with the first's
// seq, so the store and the page get the same text in fewer pieces. A model streams a
// word or so a chunk; while the session's previous write is in flight, the chunks that
// come meanwhile would each be an event to store, encode and send, and under load (a
// store commit of a few milliseconds, tens on a busy machine) most of a turn's CPU and
// garbage went into those. A delta is never held back for this: it waits only as long as
// the write ahead of it, as it did before. Nothing has seen the waiting event yet (it is
// stored, observed and sent by the flusher), and it is encoded once, when it is taken.
func (ls *liveSession) mergeTextLocked(d *wire.TextDeltaEvent) bool {
	last := ls.pendingText
	if last == nil || last.TurnID != d.TurnID || len(ls.pendingDelta)+len(d.Delta) > maxMergedDelta {
		return false
	}
	ls.pendingDelta = append(ls.pendingDelta, d.Delta...)
	return true
}

// sealTextLocked encodes the waiting text_delta (mergeTextLocked) into its place in the
// batch: an event follows it, or the flusher takes the batch.
func (ls *liveSession) sealTextLocked() {
	t := ls.pendingText
	if t == nil {
		return
	}
	ls.pendingText = nil
	t.Delta = string(ls.pendingDelta)
	ls.pendingDelta = nil // an idle tab keeps no buffer (a thousand tabs, a megabyte)
	ls.pending.Events[len(ls.pending.Events)-1].Data = ls.encodeLocked(t)
}

// flushLoop writes pending batches to the store in order, then sends their events. The
// first write of a session writes the history it starts from (a fork's copy), and creates
// it in the store if its first turn has not (ensureCreated). A write that fails for good is
// handled by failWritesLocked: its events are never sent.
func (ls *liveSession) flushLoop() {
	for {
		ls.mu.Lock()
		b := ls.pending
		if len(b.Events) == 0 && len(b.Messages) == 0 && b.ActiveTurn == nil {
			ls.step(session.Command{Kind: session.WriterIdle})
			close(ls.flushed)
			ls.mu.Unlock()
			return
		}
		ls.sealTextLocked()
		b = ls.pending
		ls.pending = store.Batch{}
		w := b
		var create *store.Session
		if ls.st.Stage != session.Stored {
			if !ls.st.Created() {
				create = &store.Session{ID: ls.id, Origin: ls.origin, Page: ls.page}
			}
			w.Messages = append(append(make([]chat.Message, 0, len(ls.messages)+len(b.Messages)), ls.messages...), b.Messages...)
		}
		ls.mu.Unlock()

		err := ls.write(create, w)

		ls.mu.Lock()
		if err != nil {
			ls.failWritesLocked(err, len(b.Events))
			ls.mu.Unlock()
			continue
		}
		ls.step(session.Command{Kind: session.Written})
		cold := ls.st.Cold()
		if !cold { // a cold session's history is the store's
			ls.messages = append(ls.messages, b.Messages...)
		}
		for _, e := range b.Events {
			ls.hub.srv.observe(ls.origin, ls.id, e.Data)
			ls.persisted = e.Seq
			if !cold {
				ls.tail = append(ls.tail, e)
			}
			ls.sendLocked(e)
		}
		if over := len(ls.tail) - tailMax; over > 0 {
			ls.tail = append(ls.tail[:0:0], ls.tail[over:]...)
		}
		ls.mu.Unlock()
	}
}

// flushContained runs a session's flusher (emit starts it). After a panic, what it held is
// handled as a write that failed for good (the turn ends with error, the session reads the
// store again before its next turn), and waitFlushed's waiters are released.
func (ls *liveSession) flushContained() {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		ls.hub.reportPanic(ls.log, "flusher", v)
		ls.mu.Lock()
		defer ls.mu.Unlock()
		ls.failWritesLocked(fmt.Errorf("agent: the session's flusher failed: %v", v), 0)
		ls.step(session.Command{Kind: session.WriterIdle})
		close(ls.flushed) // the loop closes it only on its way out, which the panic skipped
	}()
	ls.flushLoop()
}

// write stores one batch, creating the session first when create is not nil, claimed by
// this replica in the same step: another replica that resumes it at once (a twin tab) must
// never find it unclaimed, take it and close this turn as interrupted.
func (ls *liveSession) write(create *store.Session, b store.Batch) error {
	h := ls.hub
	start := time.Now()
	err := ls.retried("writing session events", func(ctx context.Context) error {
		return writeBatch(ctx, h.store, ls.id, create, h.owner, h.cfg.ClaimTTL, b)
	})
	if err == nil {
		h.metrics.storeWrites.Observe(time.Since(start).Seconds())
	}
	return err
}

// retried runs one store write, op, as the flusher does: a failure that may be transient is
// retried (writeAttempts, writeRetryFor), each attempt within writeTimeout; a seq conflict,
// a missing session or a closed store are final at once. what names the write in the log.
func (ls *liveSession) retried(what string, op func(ctx context.Context) error) error {
	_, inMemory := ls.hub.cfg.Store.(store.InMemory)
	var err error
	start := time.Now()
	for attempt := range writeAttempts {
		if attempt > 0 {
			if time.Since(start) > writeRetryFor {
				break
			}
			time.Sleep(time.Duration(50<<(attempt-1)) * time.Millisecond)
		}
		if inMemory {
			err = op(context.Background())
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err = op(ctx)
			cancel()
		}
		if err == nil || errors.Is(err, store.ErrSeqConflict) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrClosed) {
			break
		}
		ls.log.Warn(what+" failed; retrying", zap.Error(err), zap.Int("attempt", attempt+1))
	}
	return err
}

// ensureCreated creates a session that is not in the store yet (a new session or a fork,
// at the start of its first turn), claimed by this replica, before the turn calls the
// model: a store that does not take it refuses the turn with wire.ErrStoreDown, as it does
// for a stored session (resync), instead of running a turn whose answer could not be kept.
// Its history and first events are written by the flusher with the turn's first batch.
// ls.mu is not held.
func (ls *liveSession) ensureCreated() error {
	h := ls.hub
	ls.mu.Lock()
	done := ls.st.Created()
	s := &store.Session{ID: ls.id, Origin: ls.origin, Page: ls.page}
	ls.mu.Unlock()
	if done {
		return nil
	}
	err := ls.retried("creating the session", func(ctx context.Context) error {
		return h.store.CreateClaimed(ctx, s, h.owner, h.cfg.ClaimTTL)
	})
	// ErrExists: an earlier attempt created it (ids are random), or another request of this
	// session's did at the same time.
	if err != nil && !errors.Is(err, store.ErrExists) {
		ls.log.Warn("the session store did not take a new session; its first turn is refused", zap.Error(err))
		return wire.ErrStoreDown
	}
	ls.mu.Lock()
	ls.step(session.Command{Kind: session.Create})
	ls.mu.Unlock()
	return nil
}

// writeBatch is one attempt of write.
func writeBatch(ctx context.Context, st store.Store, id string, create *store.Session, owner string, ttl time.Duration, b store.Batch) error {
	if create != nil {
		// ErrExists: an earlier attempt created it (ids are random); its Append may not have
		// happened, so append now; if it did, the seqs conflict and resync sorts it out.
		if err := st.CreateClaimed(ctx, create, owner, ttl); err != nil && !errors.Is(err, store.ErrExists) {
			return fmt.Errorf("creating the session: %w", err)
		}
	}
	if err := st.Append(ctx, id, b); err != nil {
		return fmt.Errorf("appending %d events: %w", len(b.Events), err)
	}
	return nil
}

// failWritesLocked handles a write that failed for good; ls.mu is held. The failed batch's
// events and everything queued after them are dropped unsent (a page never sees an event
// the store does not hold; whether a timed-out write landed is found out by resync), the
// running turn is cancelled and its page told at once, and nothing more is numbered or
// written until resync.
//
// A write the store refuses as not found is no store failure: the session was deleted (by
// the operator, through this replica or another). Its turn ends as cancelled; nothing more
// is written, nor logged as an error, nor told to the page as unsaved, and a deletion this
// replica had not seen is carried out here too (Forget).
func (ls *liveSession) failWritesLocked(err error, events int) {
	dropped := events + len(ls.pending.Events)
	gone := errors.Is(err, store.ErrNotFound)
	eff := ls.step(session.Command{Kind: session.WriteFail, Gone: gone})
	ls.seq = ls.persisted
	ls.pending = store.Batch{}
	ls.pendingText, ls.pendingDelta = nil, nil
	rt := ls.turn
	turnID := ""
	if rt != nil {
		turnID = rt.id
	}
	if gone {
		// The store no longer has the session: the operator deleted it, here (Forget ran) or
		// through another replica's console (whose word on the bus this replica missed, or
		// has not handled yet), or it expired. That is no store failure: the turn is
		// cancelled as for a deletion here, and a deletion found only now is carried out here
		// too (forgetHere: the session leaves this replica and its tab is told "conversation
		// deleted", once the turn answered).
		ls.log.Info("the session is no longer in the store (deleted by the operator); its last events were not stored", zap.Int("eventsNotStored", dropped), zap.String("turn", turnID))
		if rt != nil {
			rt.cancel(errDeleted)
		}
		if eff.Has(session.ForgetHere) {
			go ls.hub.srv.forgetHere(ls.id) // the replica that deleted it told the others
		}
		return
	}
	ls.log.Error("the session store did not take the session's events: the turn ends with an error, and the session reads the store again before its next turn",
		zap.Error(err), zap.Int("eventsNotStored", dropped), zap.String("turn", turnID))
	if rt == nil {
		return
	}
	rt.cancel(errUnsaved)
	if ls.conn == nil {
		return
	}
	// Not part of the log, so without seq (like tool_rejected): the page shows it under the
	// turn, and the agent/chat answer says the same.
	ev := wire.ErrorEvent{EventHeader: wire.EventHeader{SessionID: ls.id, TurnID: turnID, Type: wire.EventError}, Message: unsavedText, Retryable: true}
	if err := ls.conn.notify(wire.MethodAgentEvent, ev); err != nil {
		ls.log.Debug("sending the unsaved-turn error", zap.Error(err))
	}
}

// unsaved tells whether a write failed since the last resync (at the end of a turn: whether
// one of its writes failed, so that it must not be reported as done). A session the
// operator deleted meanwhile is not unsaved: it is gone, as asked.
func (ls *liveSession) unsaved() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.st.Unsaved()
}

// gone tells whether a write found the session deleted (by the operator, through this
// replica or another): nothing more of it is written.
func (ls *liveSession) gone() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.st.Stale == session.Gone
}

// waitFlushed waits until everything emitted so far is stored and sent (or failed).
func (ls *liveSession) waitFlushed(ctx context.Context) {
	ls.mu.Lock()
	if !ls.st.Writing {
		ls.mu.Unlock()
		return
	}
	ch := ls.flushed
	ls.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}
