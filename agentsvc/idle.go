package agentsvc

// A session at rest leaves its history to the store: an open tab that is not in a turn holds
// no copy of its conversation or of its recent events, only what it needs to go on (seq,
// persisted, its page, its socket). The store is the truth anyway; the history is read back
// when a turn starts or a socket resumes the session.

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// coolLocked drops the session's messages and event tail from memory when the store holds
// all of them: the session is stored, no write failed or is pending, and no turn runs.
// ls.mu is held.
func (ls *liveSession) coolLocked() {
	busy := ls.turn != nil || len(ls.pending.Events) > 0 || len(ls.pending.Messages) > 0 || ls.pending.ActiveTurn != nil
	if ls.step(session.Command{Kind: session.Cool, Busy: busy}).Has(session.Noop) {
		return
	}
	ls.messages = nil
	ls.tail = nil
}

// warm reads a cold session's messages back from the store (a turn starts, or a socket
// resumes it). The store must be where the session left it (the seq of its last write); if
// it is not (another writer, or a store that lost writes), the session re-reads the store's
// state as after a failed write (resync). It returns wire.ErrStoreDown while the store does
// not answer, wire.ErrSessionNotFound when the session is gone from it.
func (ls *liveSession) warm() error {
	ls.mu.Lock()
	cold, letGo := ls.st.Cold(), ls.st.Stale == session.TakenBack
	ls.mu.Unlock()
	if letGo { // taken back after evict let it go: the store's state, whatever it is
		return ls.resync()
	}
	if !cold {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	s, err := ls.hub.store.Load(ctx, ls.id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		ls.goneFromStore()
		return wire.ErrSessionNotFound
	case err != nil:
		ls.log.Warn("reading the session's history", zap.Error(err))
		return wire.ErrStoreDown
	}
	ls.mu.Lock()
	match := s.Seq == ls.persisted
	switch eff := ls.step(session.Command{Kind: session.Warmed, OK: match}); {
	case eff.Has(session.Noop): // warmed meanwhile (a resume and a turn at once)
	case match:
		ls.messages = s.Messages
	default:
		ls.log.Error("the session store does not hold the session as it was left; it is read again", zap.Int64("storeSeq", s.Seq), zap.Int64("seq", ls.persisted))
		ls.mu.Unlock()
		return ls.resync() // adopts the store's state, and warms the session
	}
	ls.mu.Unlock()
	return nil
}
