package agentsvc

// The holder side of the relay (see relay.go): a session of this replica whose page is on
// another replica's socket while its turn runs here.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

func (c *pageConn) pageTools(ctx context.Context, late bool) ([]*pagemcp.Tool, bool) {
	c.awaitTools(ctx, late)
	select {
	case <-c.peer.Done(): // it closed before (or while) listing: its page is gone, wait for the next
		return nil, false
	default:
		return c.mcp.Tools(), true
	}
}

// awaitTools waits for the page's tools: its listing, and with late, while its socket is
// younger than Config.LateTools and it has none, their announcement (bounded by ctx too).
func (c *pageConn) awaitTools(ctx context.Context, late bool) {
	c.mcp.Ready(ctx)
	if !late || c.lateTools <= 0 || len(c.mcp.Tools()) > 0 {
		return
	}
	if until := c.since.Add(c.lateTools); time.Now().Before(until) {
		wctx, cancel := context.WithDeadline(ctx, until)
		c.mcp.AwaitTools(wctx)
		cancel()
	}
}

// ready waits until the page's tools are listed (a socket that just came back may not have
// answered tools/list yet), at most the handshake's time-out, before a request goes to it.
func (c *pageConn) ready(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, c.handshakeTimeout)
	defer cancel()
	c.mcp.Ready(rctx)
}

// callTool runs a call on the page once it is ready.
func (c *pageConn) callTool(ctx context.Context, name string, args json.RawMessage) tools.Outcome {
	c.ready(ctx)
	return c.mcp.Call(ctx, name, args)
}

func (c *pageConn) confirmCall(ctx context.Context, name string, args json.RawMessage, tool *wire.ConfirmTool) (tools.Outcome, json.RawMessage, bool) {
	c.ready(ctx)
	return c.mcp.Confirm(ctx, name, args, tool)
}

func (c *pageConn) elicit(ctx context.Context, p wire.ElicitParams) (wire.ElicitResult, string, bool) {
	c.ready(ctx)
	return c.mcp.Elicit(ctx, p)
}

func (c *pageConn) leaving() bool           { return c.mcp.Leaving() }
func (c *pageConn) closed() <-chan struct{} { return c.peer.Done() }

func (rp *remotePage) pageTools(ctx context.Context, late bool) ([]*pagemcp.Tool, bool) {
	list, ok := rp.remoteTools(ctx, late)
	if !ok {
		rp.r.srv.hub.dropRemote(rp) // its replica no longer serves it: wait for the page's next socket
		return nil, false
	}
	out := make([]*pagemcp.Tool, len(list))
	for i, t := range list {
		out[i] = &pagemcp.Tool{PageTool: *t}
	}
	return out, true
}

// attachRemote handles a proxy's attach: the session's page is now on m.From's socket. The
// same rule as for a socket of this replica (take): if the tab that has the session still
// answers, the newcomer is another tab and forks; else, while a turn runs, the turn uses the
// new page from now on, and with no turn the session is let go for the newcomer to claim.
func (h *hub) attachRemote(m relayMsg) relayMsg {
	h.mu.Lock()
	ls := h.live[m.Session]
	h.mu.Unlock()
	if ls == nil || ls.origin != m.Origin {
		return relayMsg{Status: stAbsent}
	}
	ctx, cancel := context.WithTimeout(context.Background(), attachDecide)
	defer cancel()
	for {
		ls.mu.Lock()
		if ls.st.Let() {
			ls.mu.Unlock()
			return relayMsg{Status: stAbsent}
		}
		prev, prem := ls.owner, ls.remote
		ls.mu.Unlock()
		if (prev != nil && prev.alive(ctx, min(probeWait, h.cfg.HandshakeTimeout))) || (prem != nil && h.remoteAlive(ctx, prem)) {
			return relayMsg{Status: stFork}
		}
		// Made before ls.mu is taken (no lock is taken inside the session's); closed unless
		// a running turn uses it.
		rp, replaced := h.relay.newRemote(m.From, m.Link, ls.id)
		ls.mu.Lock()
		if ls.owner != prev || ls.remote != prem || ls.st.Let() {
			ls.mu.Unlock()
			rp.unused(replaced)
			continue // changed meanwhile: decide again
		}
		ls.owner = nil
		if prev != nil && ls.conn == prev {
			ls.conn = nil
		}
		if ls.turn == nil {
			ls.remote = nil
			ls.signalConnLocked()
			ls.mu.Unlock()
			rp.unused(replaced)
			h.supersede(prem)
			h.evict(ls)
			ls.mu.Lock()
			evicted := ls.st.Let()
			ls.mu.Unlock()
			if evicted {
				return relayMsg{Status: stReleased}
			}
			return relayMsg{Status: stAbsent}
		}
		ls.remote = rp
		ls.signalConnLocked()
		info := ls.runningLocked()
		ls.mu.Unlock()
		h.supersede(prem)
		ls.log.Debug("the running turn's page is on another replica now", zapReplica(m.From))
		return relayMsg{Status: stAttached, TurnID: info.id, ClientTurnID: info.clientTurnID, StartSeq: info.startSeq}
	}
}

// supersede ends a remote page that lost its session to another socket, and tells its replica.
func (h *hub) supersede(rp *remotePage) {
	if rp == nil {
		return
	}
	rp.closeLink()
	ctx, cancel := context.WithTimeout(context.Background(), relayWait)
	defer cancel()
	_ = h.relay.send(ctx, rp.replica, relayMsg{Kind: relaySuperseded, Session: rp.session, Link: rp.link})
}

// remoteAlive tells whether a remote page still serves a live tab (its replica pings it).
func (h *hub) remoteAlive(ctx context.Context, rp *remotePage) bool {
	select {
	case <-rp.done:
		return false
	default:
	}
	if rp.leaving() {
		return false
	}
	rep, err := h.relay.ask(ctx, rp.replica, relayMsg{Kind: relayPing, Link: rp.link, Session: rp.session})
	return err == nil && rep.Status == stAlive
}

// dropRemote handles a proxy's detach: its socket is gone, so the turn's waiting tool calls
// fail at once and the turn waits for the page to come back, as with a socket of this replica.
func (h *hub) dropRemote(rp *remotePage) {
	h.mu.Lock()
	ls := h.live[rp.session]
	h.mu.Unlock()
	rp.closeLink()
	if ls == nil {
		return
	}
	ls.mu.Lock()
	if ls.remote == rp {
		ls.remote = nil
		ls.signalConnLocked()
	}
	ls.mu.Unlock()
	h.evict(ls) // when nothing uses it now
}

// cancelFromRemote handles agent/cancel from a proxied socket.
func (h *hub) cancelFromRemote(m relayMsg) relayMsg {
	h.mu.Lock()
	ls := h.live[m.Session]
	h.mu.Unlock()
	if ls == nil {
		return relayMsg{Code: wire.CodeNoTurn}
	}
	ls.mu.Lock()
	rt := ls.turn
	ls.mu.Unlock()
	if rt == nil || (m.TurnID != "" && m.TurnID != rt.id) {
		return relayMsg{Code: wire.CodeNoTurn}
	}
	rt.cancel(errors.New("cancelled by the user"))
	return relayMsg{Status: stOK, TurnID: rt.id}
}

// yieldTo handles a proxied socket's agent/chat: with a turn running the page is told so;
// else the session is let go for the proxy to take over, unless a tab on this replica has
// it now (its turn ended and another socket here resumed it): then it is not let go, and
// the proxied page is told to fork, as a second tab would be.
func (h *hub) yieldTo(m relayMsg) relayMsg {
	h.mu.Lock()
	ls := h.live[m.Session]
	h.mu.Unlock()
	if ls == nil {
		return relayMsg{Status: stAbsent}
	}
	ls.mu.Lock()
	rt := ls.turn
	ls.mu.Unlock()
	if rt != nil && !rt.waitEnded() {
		return relayMsg{Status: stBusy}
	}
	h.evict(ls)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	switch {
	case ls.st.Let():
		return relayMsg{Status: stReleased}
	case ls.turn != nil: // a turn of a tab here started meanwhile
		return relayMsg{Status: stBusy}
	}
	return relayMsg{Status: stFork}
}
