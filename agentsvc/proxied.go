// What a socket's agent/session, agent/chat and agent/cancel do when its session's turn runs
// on another replica: the socket follows the turn through a proxy (proxy.go).

package agentsvc

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// proxyTo asks the holder of session s (another replica, holding its claim) to use socket c's
// page for its running turn. It returns the proxy when the holder took it, errForkNeeded when
// the session is live on another tab, or nil: the holder let it go (or does not answer), and
// the caller claims the session as usual.
//
// With follow (a take-over: proxy.takeOver) the holder is not asked: it claimed the session
// after the replica that let it go told c's proxy so, for a newer page (or a newer tab) than
// c's, whose running turn must not be handed to c's page, which may be gone already. The
// proxy returned (with no reply) only follows the session's events; the page's agent/chat
// asks the holder as on any proxy, and the proxy takes the session over once it is free.
func (h *hub) proxyTo(ctx context.Context, c *pageConn, s *store.Session, follow bool) (*proxy, *relayMsg, error) {
	r := h.relay
	ok, holder, err := h.store.Claim(ctx, s.ID, h.owner, h.cfg.ClaimTTL)
	if err != nil || ok || holder == "" || holder == h.owner {
		return nil, nil, nil
	}
	px := h.newProxy(c, s.ID, s.Origin)
	if err := px.follow(ctx); err != nil {
		px.log.Warn("proxy: following the session's events", zap.Error(err))
		return nil, nil, nil
	}
	px.holder = holder
	r.mu.Lock()
	r.proxies[px.link] = px
	r.mu.Unlock()
	if follow {
		return px, nil, nil
	}
	// The holder may ping the tab's previous socket first, on yet another replica (attachWait).
	rep, err := r.askWithin(ctx, holder, relayMsg{Kind: relayAttach, Session: s.ID, Link: px.link, Origin: s.Origin}, attachWait)
	switch {
	case err == nil && rep.Status == stAttached:
		return px, &rep, nil
	case err == nil && rep.Status == stFork:
		px.end("")
		return nil, nil, errForkNeeded
	default:
		px.end("")
		return nil, nil, nil
	}
}

// openProxied answers agent/session for a socket whose session's turn runs on the holder:
// the conversation as stored, the running turn's snapshot, then the events after lastSeq.
func (h *hub) openProxied(ctx context.Context, c *pageConn, px *proxy, rep *relayMsg, p wire.SessionParams) (any, error) {
	st := h.store
	s, err := st.Load(ctx, px.id)
	if err != nil {
		px.end("the page could not be served")
		if errors.Is(err, store.ErrNotFound) {
			return nil, wire.ErrSessionNotFound
		}
		return nil, wire.ErrStoreDown
	}
	res := &wire.SessionResult{SessionID: s.ID, Resumed: true, Messages: settledMessages(s.Messages, rep.TurnID), Seq: s.Seq}
	if rep.TurnID != "" {
		res.Running = snapshotOf(ctx, st, s.ID, &runningInfo{id: rep.TurnID, clientTurnID: rep.ClientTurnID, startSeq: rep.StartSeq}, s.Seq, nil, px.log)
	}
	from := s.Seq
	var older []store.Event
	if p.LastSeq != nil && *p.LastSeq >= 0 && *p.LastSeq < from {
		from = *p.LastSeq
		if older, err = st.EventsAfter(ctx, s.ID, from, replayMax*4); err != nil {
			// Never an answer that tells the page it is up to date over a gap.
			px.log.Warn("reading events to replay", zap.Error(err))
			px.end("the page could not be served")
			return nil, wire.ErrStoreDown
		}
	}
	c.bind(nil)
	c.bindProxy(nil, px)
	h.relay.served.Add(1)
	px.log.Debug("serving a session whose turn runs on another replica", zap.String("holder", px.holder))
	return wsrpc.ReplyThen(res, func() { px.start(from, older) }), nil
}

// proxyChat handles agent/chat on a proxied socket: the holder lets the session go unless a
// turn runs (then the page gets the error it would get there), and the turn runs here.
func (h *hub) proxyChat(ctx context.Context, c *pageConn, px *proxy, p wire.ChatParams) (any, error) {
	rep, err := h.relay.ask(ctx, px.holder, relayMsg{Kind: relayYield, Session: px.id, Link: px.link})
	switch {
	case err == nil && rep.Status == stBusy:
		settleRequest(ctx)
		return nil, wire.ErrTurnInProgress
	case err == nil && rep.Status == stFork:
		// A tab on the holder has the session now: the holder keeps it (taking it over would
		// wait out its claim), and the page resumes, to get a copy as a second tab does.
		px.end("its session is open in another tab")
		c.sendBack("its session is open in another tab; reconnect to resume it")
		settleRequest(ctx)
		return nil, wire.ErrNoSession
	}
	px.takeOver()
	if next := c.boundProxy(); next != nil && next != px { // the take-over found a newer holder:
		return h.proxyChat(ctx, c, next, p) // the socket follows it, and the page asks it
	}
	if c.boundSession() == nil {
		settleRequest(ctx)
		return nil, wire.ErrNoSession
	}
	return h.chat(ctx, c, p)
}

// proxyCancel handles agent/cancel on a proxied socket: the holder cancels its turn.
func (h *hub) proxyCancel(ctx context.Context, px *proxy, p wire.CancelParams) (any, error) {
	rep, err := h.relay.ask(ctx, px.holder, relayMsg{Kind: relayCancel, Session: px.id, TurnID: p.TurnID})
	if err != nil || rep.Code != 0 || rep.TurnID == "" {
		return nil, wire.ErrNoTurn
	}
	return wire.CancelResult{TurnID: rep.TurnID}, nil
}
