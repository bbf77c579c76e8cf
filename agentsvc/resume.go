package agentsvc

// agent/session: create, resume (from memory or the store) or fork a session for a socket.

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// openSession handles agent/session.
func (h *hub) openSession(ctx context.Context, c *pageConn, p wire.SessionParams) (any, error) {
	st := h.store
	var page store.Page
	if p.Page != nil {
		page = store.Page{URL: capString(p.Page.URL, 2048), Title: capString(p.Page.Title, 512)}
	}
	if px := c.boundProxy(); px != nil { // asked again: this socket's proxy ends here
		if p.SessionID != "" && p.SessionID != px.id {
			// Unless the session asked for cannot be had: a failed request leaves the socket on
			// the session it serves, as for a socket of a session live here.
			if err := h.findable(ctx, p.SessionID, c.origin); err != nil {
				return nil, err
			}
		}
		px.end("the page asked for a session again")
		// Also when a take-over had stopped it already (end is then a no-op): a take-over
		// still in flight must not bind its session to this socket after this answer.
		c.bindProxy(px, nil)
	}
	// Read after the proxy is gone: a take-over that bound its session first is left below.
	prev := c.boundSession() // left only once the new session is found: a failed request keeps it

	var ls *liveSession
	resumed, forked := false, false
	if p.SessionID != "" {
		var err error
		ls, err = h.resume(ctx, c, p.SessionID)
		var pe *proxied
		if errors.As(err, &pe) {
			if prev != nil {
				h.detachFrom(prev, c)
			}
			return h.openProxied(ctx, c, pe.px, pe.rep, p)
		}
		switch {
		case errors.Is(err, errForkNeeded):
			ls, err = h.fork(ctx, c, p.SessionID, page)
			if err != nil {
				return nil, err
			}
			forked = true
		case err != nil:
			return nil, err
		default:
			resumed = true
		}
	} else {
		var err error
		if ls, err = h.create(ctx, c.origin, page, nil); err != nil {
			return nil, err
		}
	}
	lastSeq := int64(-1)
	if p.LastSeq != nil && resumed {
		lastSeq = *p.LastSeq
	}
	// older: the events to replay that memory may not hold.
	var older []store.Event
	if !resumed { // a new session or a fork: nobody else knows it yet
		ls.mu.Lock()
		ls.owner = c
		ls.mu.Unlock()
	} else {
		err := ls.warm() // an idle session's messages are in the store
		if err == nil {
			older, err = ls.replayFrom(ctx, lastSeq)
		}
		if err != nil {
			h.failedOpen(ls, c, prev)
			return nil, err
		}
	}
	switch {
	case prev == ls: // asked again: no event goes out until it is attached again, after the answer
		ls.mu.Lock()
		if ls.conn == c {
			ls.conn = nil
		}
		ls.mu.Unlock()
	case prev != nil:
		h.detachFrom(prev, c)
	}
	if p.Page != nil && resumed {
		ls.mu.Lock()
		ls.page = page // a session not stored yet is created with it
		stored := ls.st.Stage == session.Stored
		ls.mu.Unlock()
		if stored {
			if err := st.Append(ctx, ls.id, store.Batch{Page: &page}); err != nil {
				ls.log.Warn("saving page", zap.Error(err))
			}
		}
	}

	ls.mu.Lock()
	for ls.st.Cold() { // cooled again since (a turn of its previous socket ended): read again
		ls.mu.Unlock()
		if err := ls.warm(); err != nil {
			h.failedOpen(ls, c, prev)
			return nil, err
		}
		ls.mu.Lock()
	}
	// Seq is the last persisted event: the page is told of nothing the store could lose, and
	// what is persisted after it is sent once attached.
	res := &wire.SessionResult{
		SessionID: ls.id,
		Resumed:   resumed,
		Forked:    forked,
		Seq:       ls.persisted,
	}
	running := ls.runningLocked()
	if running != nil {
		res.Messages = settledMessages(ls.messages, running.id)
	} else {
		res.Messages = append([]chat.Message{}, ls.messages...)
	}
	ls.mu.Unlock()
	if running != nil {
		res.Running = ls.runningSnapshot(ctx, running, res.Seq)
	}
	c.bind(ls)
	from := res.Seq
	if lastSeq >= 0 && lastSeq < from {
		from = lastSeq
	}
	return wsrpc.ReplyThen(res, func() { ls.attach(c, from, older) }), nil
}

// failedOpen undoes what a failed agent/session of socket c did to session ls (c's session
// before it was prev): ls is no longer c's, and if nobody else has it (it was loaded into
// memory for this request), it does not stay in memory with nobody to let it go.
func (h *hub) failedOpen(ls *liveSession, c *pageConn, prev *liveSession) {
	if prev == ls {
		return
	}
	ls.mu.Lock()
	if ls.owner == c { // given to c by this request
		ls.owner = nil
	}
	ls.mu.Unlock()
	h.evict(ls) // when nothing else uses it
}

// findable tells whether agent/session can find session id for origin: nil,
// wire.ErrSessionNotFound, or wire.ErrStoreDown when the store does not answer.
func (h *hub) findable(ctx context.Context, id, origin string) error {
	h.mu.Lock()
	ls := h.live[id]
	if p, ok := h.parked[id]; ok && ls == nil {
		ls = p.ls
	}
	h.mu.Unlock()
	if ls != nil {
		if ls.origin != origin {
			return wire.ErrSessionNotFound
		}
		return nil
	}
	_, err := h.loadFor(ctx, id, origin)
	return err
}

// loadFor loads session id from the store for a page of origin: wire.ErrSessionNotFound when
// the store does not have it or it belongs to another origin (the two are not told apart),
// wire.ErrStoreDown when the store does not answer.
//
// An AG-UI thread is not found either, whatever its origin: a page socket and an AG-UI client
// never share a conversation (store.IsThread).
func (h *hub) loadFor(ctx context.Context, id, origin string) (*store.Session, error) {
	if store.IsThread(id) {
		return nil, wire.ErrSessionNotFound
	}
	s, err := h.store.Load(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, wire.ErrSessionNotFound
	case err != nil && ctx.Err() != nil: // the page went, or cancelled its request: not the store
		return nil, ctx.Err()
	case err != nil:
		// The page gets -32010 and tries again; a store that is down is the operator's
		// concern, told by its own error and byomcp_refused_total, not an error of ours.
		h.log.Warn("loading session: the store did not answer", zap.String("session", shortID(id)), zap.Error(err))
		return nil, wire.ErrStoreDown
	case s.Origin != origin:
		return nil, wire.ErrSessionNotFound
	}
	return s, nil
}

// take gives a session of this process to socket c, unless another socket that still
// serves a live tab has it (errForkNeeded). The check and the hand-over are one step under
// ls.mu; only the ping of the previous socket runs outside it, and the hand-over then
// happens only if nobody took the session meanwhile.
func (h *hub) take(ctx context.Context, ls *liveSession, c *pageConn) (*liveSession, error) {
	for {
		ls.mu.Lock()
		prev, prem := ls.owner, ls.remote
		if prem == nil && (prev == nil || prev == c) {
			ls.owner = c
			ls.mu.Unlock()
			return ls, nil
		}
		ls.mu.Unlock()
		if prem != nil && h.remoteAlive(ctx, prem) {
			return nil, errForkNeeded // the running turn's page is a live tab on another replica
		}
		if prev != nil && prev != c && prev.alive(ctx, min(probeWait, h.cfg.HandshakeTimeout)) {
			return nil, errForkNeeded
		}
		ls.mu.Lock()
		if ls.owner == prev && ls.remote == prem {
			ls.owner = c
			if prem != nil {
				ls.remote = nil
				ls.signalConnLocked()
			}
			ls.mu.Unlock()
			h.supersede(prem)
			return ls, nil
		}
		ls.mu.Unlock() // another socket took it meanwhile: look at the new owner
	}
}

// resume finds a session in this process or loads it from the store and claims it. A
// conversation an operator deleted is not found, also while its deletion is under way (its
// copy here still ending its turn, the store not yet told): a copy loaded meanwhile would
// write beside the one ending.
func (h *hub) resume(ctx context.Context, c *pageConn, id string) (*liveSession, error) {
	return h.resumeFor(ctx, c, id, false)
}

// resumeFor is resume; takingOver when socket c's proxy takes the session over from the
// replica that let it go (proxy.takeOver): another replica that holds it now is then followed,
// not asked to give its running turn's page to c (proxyTo).
func (h *hub) resumeFor(ctx context.Context, c *pageConn, id string, takingOver bool) (*liveSession, error) {
	if h.srv.deleted.Has(id, time.Now()) {
		return nil, wire.ErrSessionNotFound
	}
	h.mu.Lock()
	ls := h.live[id]
	h.mu.Unlock()
	if ls == nil {
		ls = h.unpark(id, c.origin)
	}
	if ls != nil {
		if ls.origin != c.origin {
			return nil, wire.ErrSessionNotFound
		}
		return h.take(ctx, ls, c)
	}
	st := h.store
	s, err := h.loadFor(ctx, id, c.origin)
	if err != nil {
		return nil, err
	}
	if px := c.boundProxy(); h.relay != nil && (px == nil || px.ended()) {
		// Held by another replica: while its turn runs, this socket serves the turn's page.
		px, rep, err := h.proxyTo(ctx, c, s, takingOver)
		if err != nil {
			return nil, err
		}
		if px != nil {
			return nil, &proxied{px, rep}
		}
	}
	if !h.claimToLoad(ctx, id) {
		return nil, errForkNeeded
	}
	defer h.loaded(id)
	// Read it again now that it is ours: its previous owner may have written to it until it
	// let go (a replica that finished a turn after the page moved here).
	if s, err = h.loadFor(ctx, id, c.origin); err != nil {
		return nil, err
	}
	// Read before the session is in the hub: from then on other sockets use it (under ls.mu).
	tail, err := st.EventsAfter(ctx, id, max(0, s.Seq-tailMax), 0)
	if err != nil {
		tail = nil // replayFrom reads the store again, or refuses to answer over a gap
	}
	h.mu.Lock()
	if other := h.live[id]; other != nil { // loaded meanwhile by another socket
		h.mu.Unlock()
		return h.resumeFor(ctx, c, id, takingOver)
	}
	ls = h.newLive(s.ID, s.Origin, s.Page, session.Loaded())
	ls.seq, ls.persisted = s.Seq, s.Seq
	ls.messages = s.Messages
	ls.tail = tail
	ls.owner = c
	h.live[id] = ls
	h.mu.Unlock()
	h.metrics.sessions.Inc()
	if s.ActiveTurn != "" {
		ls.recoverInterrupted(s.ActiveTurn, "(This answer was interrupted: the agent restarted before it finished. Please ask again.)", cutTurnLabel(c, id))
		ls.waitFlushed(ctx) // the result then holds the mark in its messages and seq
	}
	return ls, nil
}

// fork gives a second tab of a live session its own session with a copy of the history,
// so two sockets never run one session's tool calls.
func (h *hub) fork(ctx context.Context, c *pageConn, id string, page store.Page) (*liveSession, error) {
	var history []chat.Message
	active := ""
	h.mu.Lock()
	ls := h.live[id]
	h.mu.Unlock()
	live := false
	if ls != nil {
		ls.mu.Lock()
		if live = !ls.st.Cold(); live { // a cold one's history is the store's
			history = append(history, ls.messages...)
			if ls.turn != nil {
				active = ls.turn.id
			}
		}
		ls.mu.Unlock()
	}
	if !live {
		s, err := h.loadFor(ctx, id, c.origin) // a store that does not answer is not a lost session
		if err != nil {
			return nil, err
		}
		history, active = s.Messages, s.ActiveTurn
	}
	h.log.Info("session live on another socket; forked", zap.String("session", shortID(id)))
	return h.create(ctx, c.origin, page, completeTurns(history, active))
}

// completeTurns drops the turn that is still running: the messages of turn active (its
// user message is stored when it starts) and any tool call left unanswered.
func completeTurns(msgs []chat.Message, active string) []chat.Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	for i, m := range msgs {
		if active != "" && m.TurnID == active {
			return append([]chat.Message(nil), msgs[:i]...)
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				return append([]chat.Message(nil), msgs[:i]...)
			}
		}
	}
	return msgs
}
