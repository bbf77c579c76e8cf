package agentsvc

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// What the operator console (agentsvc/console) reads of the running service: the open tabs
// (Tabs) and every event as it is logged (Config.OnEvent).

// Tab is one open page socket.
type Tab struct {
	ConnID    string
	Origin    string
	SessionID string // "" before agent/session
	URL       string
	Title     string
	Since     time.Time // when the socket opened
	Tools     []wire.PageTool
}

// Tabs returns the page sockets open in this process, oldest first.
func (s *Server) Tabs() []Tab {
	s.mu.Lock()
	conns := make([]*pageConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	tabs := make([]Tab, 0, len(conns))
	for _, c := range conns {
		t := Tab{ConnID: c.id, Origin: c.origin, Since: c.since}
		for _, pt := range c.mcp.Tools() {
			t.Tools = append(t.Tools, pt.PageTool)
		}
		if ls := c.boundSession(); ls != nil {
			ls.mu.Lock()
			t.SessionID, t.URL, t.Title = ls.id, ls.page.URL, ls.page.Title
			ls.mu.Unlock()
		}
		tabs = append(tabs, t)
	}
	slices.SortFunc(tabs, func(a, b Tab) int { return a.Since.Compare(b.Since) })
	return tabs
}

// Replica is this process's name among the replicas of a shared store (its session owner
// id: Config.OwnerID, or a random one).
func (s *Server) Replica() string { return s.owner }

// observe passes a logged event to Config.OnEvent. It runs under the session's lock: the
// callback must not block.
func (s *Server) observe(origin, sessionID string, data json.RawMessage) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(origin, sessionID, data)
	}
}

// forgetWait bounds how long Forget waits for the cancelled turn of a deleted session to end
// and be answered.
const forgetWait = 5 * time.Second

// Forget drops a session held in this process, for an operator who deletes it: the console
// calls it before it deletes the session from the store, and again after (to drop a copy
// that a tab reconnecting meanwhile loaded). The running turn is cancelled first (cause
// errDeleted: it ends as cancelled, and its end is stored and answered before the store
// drops the session; a write the store then refuses as not found is no store failure), it
// leaves the live sessions (a reconnecting tab cannot take it back from memory), and its
// socket is closed (1000, "conversation deleted"), so the tab's next connection finds
// nothing and starts a new conversation. The other replicas of a shared store are told on
// its bus (store.ForgetChannel) and do the same with their copy, their tabs of it and the
// tabs they serve for its turn here.
func (s *Server) Forget(id string) {
	if r := s.relay; r != nil {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		if err := r.broadcastForget(ctx, id); err != nil {
			s.log.Warn("could not tell the other replicas of a deleted conversation; their tabs of it end at its next write", zap.Error(err))
		}
		cancel()
	}
	s.forgetHere(id)
}

// forgetHere is Forget in this process only: the session, and the sockets that serve it for
// another replica's turn.
func (s *Server) forgetHere(id string) {
	s.deleted.Add(id, time.Now())
	s.closeProxiesOf(id)
	h := s.hub
	h.mu.Lock()
	ls := h.live[id]
	if ls != nil {
		delete(h.live, id)
		s.metrics.sessions.Dec()
	}
	if p, ok := h.parked[id]; ok && ls == nil {
		ls = p.ls
	}
	delete(h.parked, id)
	h.mu.Unlock()
	if ls == nil {
		return
	}
	ls.mu.Lock()
	ls.step(session.Command{Kind: session.Delete})
	rt := ls.turn
	if rt != nil {
		rt.cancel(errDeleted)
	}
	ls.mu.Unlock()
	if rt != nil { // the page gets the turn's end and its agent/chat answer before the close
		ctx, cancel := context.WithTimeout(context.Background(), forgetWait)
		select {
		case <-rt.done:
		case <-ctx.Done():
		}
		select {
		case <-rt.replied:
		case <-rt.caller.peer.Done():
		case <-ctx.Done():
		}
		cancel()
	}
	ls.mu.Lock()
	c, owner, remote := ls.conn, ls.owner, ls.remote
	ls.remote = nil
	ls.mu.Unlock()
	if remote != nil {
		remote.closeLink() // its replica closes the page's socket on the same forget
	}
	for _, pc := range []socket{c, owner} {
		if pc != nil {
			pc.closeWith("conversation deleted")
		}
	}
}

// closeProxiesOf ends this replica's proxies of session id (deleted) and closes their sockets
// as Forget closes the session's own.
func (s *Server) closeProxiesOf(id string) {
	r := s.relay
	if r == nil {
		return
	}
	var pxs []*proxy
	r.mu.Lock()
	for _, px := range r.proxies {
		if px.id == id {
			pxs = append(pxs, px)
		}
	}
	r.mu.Unlock()
	for _, px := range pxs {
		px.stopFollowing()
		px.c.peer.CloseWithStatus(1000, "conversation deleted")
	}
}
