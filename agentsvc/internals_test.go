package agentsvc

import "strings"

// The tests' only way into the internals of the live sessions: the hub's maps, a
// liveSession's fields, the Server's sockets and the relay's links, each read or changed under
// its own lock here. A refactor of those types changes the functions of this file, not the
// tests that call them.

// liveOf is session id's live copy in srv's hub (nil when it is not live).
func liveOf(srv *Server, id string) *liveSession {
	srv.hub.mu.Lock()
	defer srv.hub.mu.Unlock()
	return srv.hub.live[id]
}

// isLive tells whether a session is in a server's memory.
func isLive(ts *testServer, id string) bool { return liveOf(ts.Server, id) != nil }

// heldOf is session id's copy in srv's memory, live or parked (nil when there is none).
func heldOf(srv *Server, id string) *liveSession {
	srv.hub.mu.Lock()
	defer srv.hub.mu.Unlock()
	if ls := srv.hub.live[id]; ls != nil {
		return ls
	}
	if p, ok := srv.hub.parked[id]; ok {
		return p.ls
	}
	return nil
}

// isParked tells whether session id is parked in srv's hub.
func isParked(srv *Server, id string) bool {
	srv.hub.mu.Lock()
	defer srv.hub.mu.Unlock()
	_, ok := srv.hub.parked[id]
	return ok
}

// liveCount is how many sessions are live in srv's hub.
func liveCount(srv *Server) int { return len(srv.hub.liveSessions()) }

// heldCount is how many sessions srv's hub holds, live or parked.
func heldCount(srv *Server) int {
	srv.hub.mu.Lock()
	defer srv.hub.mu.Unlock()
	return len(srv.hub.live) + len(srv.hub.parked)
}

// setParkMax changes how many unused sessions srv's hub parks at most.
func setParkMax(srv *Server, n int) {
	srv.hub.mu.Lock()
	defer srv.hub.mu.Unlock()
	srv.hub.parkMax = n
}

// startTurnIn starts a turn in ls as agent/chat does for caller (no client turn id).
func startTurnIn(srv *Server, ls *liveSession, caller *pageConn, text string) (*runningTurn, error) {
	return srv.hub.startTurn(ls, caller, text, "")
}

// yieldSession is srv's answer to another replica asking it to let session id go.
func yieldSession(srv *Server, id string) relayMsg {
	return srv.hub.yieldTo(relayMsg{Kind: relayYield, Session: id})
}

// detachForResume does to ls what agent/session does for the socket's own session: it takes
// the seq the answer carries (the last one stored), then detaches the socket. It returns
// that seq.
func detachForResume(ls *liveSession) (from int64) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	from = ls.persisted
	ls.conn = nil
	return from
}

// coldAndEvicted tells whether ls left its history to the store (cold) and whether it was
// let go (evicted).
func coldAndEvicted(ls *liveSession) (cold, evicted bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.st.Cold(), ls.st.Let()
}

// isEvicted tells whether ls was let go (evict).
func isEvicted(ls *liveSession) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.st.Let()
}

// revive takes ls back as a request that found it just before evict does (takeBackLocked); it
// returns why it could not ("" when it did).
func revive(ls *liveSession) string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.takeBackLocked()
}

// liveState is what a live session holds in memory, read under its lock.
func liveState(ts *testServer, id string) (ok, cold bool, messages, tail int) {
	ls := liveOf(ts.Server, id)
	if ls == nil {
		return false, false, 0, 0
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return true, ls.st.Cold(), len(ls.messages), len(ls.tail)
}

// turnOverHere tells whether session id's turn has ended in the server's memory too: the
// store may already hold its end while the flusher has not yet applied that write to the
// session (then a resume's result ends before the answer, which follows as events).
func turnOverHere(ts *testServer, id string) func() bool {
	return func() bool {
		ls := heldOf(ts.Server, id)
		if ls == nil {
			return true
		}
		ls.mu.Lock()
		defer ls.mu.Unlock()
		return ls.turn == nil && !ls.st.Writing
	}
}

// lastPendingEvent is the data of the last event ls has queued for the store (nil when none).
func lastPendingEvent(ls *liveSession) []byte {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if n := len(ls.pending.Events); n > 0 {
		return ls.pending.Events[n-1].Data
	}
	return nil
}

// serverConns are the sockets srv serves.
func serverConns(srv *Server) []*pageConn {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	conns := make([]*pageConn, 0, len(srv.conns))
	for c := range srv.conns {
		conns = append(conns, c)
	}
	return conns
}

// isClosing tells whether srv's Shutdown has begun.
func isClosing(srv *Server) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.closing
}

// relayProxies are srv's sockets whose session another replica holds.
func relayProxies(srv *Server) []*proxy {
	srv.relay.mu.Lock()
	defer srv.relay.mu.Unlock()
	pxs := make([]*proxy, 0, len(srv.relay.proxies))
	for _, px := range srv.relay.proxies {
		pxs = append(pxs, px)
	}
	return pxs
}

// relayLinks counts srv's proxies and the remote pages of its turns (0, 0 without a relay).
func relayLinks(srv *Server) (proxies, remotePages int) {
	if srv.relay == nil {
		return 0, 0
	}
	srv.relay.mu.Lock()
	defer srv.relay.mu.Unlock()
	return len(srv.relay.proxies), len(srv.relay.links)
}

// proxyUnsub is px's unsubscribe from the holder's events.
func proxyUnsub(px *proxy) func() {
	px.mu.Lock()
	defer px.mu.Unlock()
	return px.unsub
}

// waitingIn tells whether a goroutine of this module is in fn now (its stack names it, as
// "pagemcp.(*Client).AwaitTools"): a turn that has reached a wait, seen from outside.
func waitingIn(fn string) bool {
	for _, g := range ourGoroutines() {
		if strings.Contains(g, fn+"(") {
			return true
		}
	}
	return false
}

// phaseOf is the session's phase (session.State.Phase).
func phaseOf(ls *liveSession) string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.st.Phase()
}

// relayWaiting is how many relay requests of srv wait for a reply.
func relayWaiting(srv *Server) int {
	srv.relay.mu.Lock()
	defer srv.relay.mu.Unlock()
	return len(srv.relay.waits)
}

// hubOf is srv's hub of live sessions.
func hubOf(srv *Server) *hub { return srv.hub }

// pageOnReplica makes ls's page a remote page on replica (its link: link), as an attach from
// that replica does while a turn runs.
func pageOnReplica(srv *Server, ls *liveSession, replica, link string) {
	rp, _ := srv.relay.newRemote(replica, link, ls.id)
	ls.mu.Lock()
	ls.remote = rp
	ls.mu.Unlock()
}
