package agentsvc

// The hub of the sessions live in this process: creating, parking, claiming, detaching and
// evicting them.

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// hub holds the sessions live in this process: attached to a socket or running a turn.
//
// Lock order: hub.mu after liveSession.mu, never before (liveSessions hands out a snapshot to
// lock each session with hub.mu released); see Server for the whole package's order.
type hub struct {
	srv  *Server
	mu   sync.Mutex
	live map[string]*liveSession
	// parked are sessions nobody chatted in (never stored) whose socket went: kept for
	// parkFor, at most parkMax, oldest first out (parkQ, in parking order), so that the
	// tab's next page load resumes them.
	parked  map[string]parkedSession
	parkQ   []parkedEntry
	parkMax int
}

// A session that was never used is parked in memory for parkFor after its socket goes (a
// page load or a reload before the first message), and at most parkMax of them are kept.
const (
	parkFor = 5 * time.Minute
	parkMax = 1000
)

type parkedSession struct {
	ls    *liveSession
	until time.Time
}

type parkedEntry struct {
	id    string
	until time.Time
}

func newHub(s *Server) *hub {
	h := &hub{srv: s, live: map[string]*liveSession{}, parked: map[string]parkedSession{}, parkMax: parkMax}
	go h.srv.loopUntil(h.srv.renewing, "renew_claims", h.renewClaims)
	return h
}

// parkLocked keeps a session that was never stored for parkFor after its socket went,
// dropping the oldest parked sessions over parkMax. h.mu is held.
func (h *hub) parkLocked(ls *liveSession, now time.Time) {
	until := now.Add(parkFor)
	h.parked[ls.id] = parkedSession{ls, until}
	h.parkQ = append(h.parkQ, parkedEntry{ls.id, until})
	for len(h.parkQ) > 0 {
		e := h.parkQ[0]
		p, ok := h.parked[e.id]
		switch {
		case ok && p.until != e.until: // parked again later; that entry is further on
		case ok && len(h.parked) <= h.parkMax && now.Before(p.until):
			return
		case ok:
			delete(h.parked, e.id)
			p.ls.log.Debug("dropped a session that was never used; it was not stored")
		}
		h.parkQ = h.parkQ[1:]
	}
}

// unpark takes back a parked session of origin, live again (nil when there is none).
func (h *hub) unpark(id, origin string) *liveSession {
	h.mu.Lock()
	p, ok := h.parked[id]
	if !ok || p.ls.origin != origin {
		h.mu.Unlock()
		return nil
	}
	delete(h.parked, id)
	h.mu.Unlock()
	if !time.Now().Before(p.until) {
		return nil
	}
	ls := p.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.stored { // taken back and stored since it was parked: the store has it, as it is now
		return nil
	}
	ls.evicted = false
	h.mu.Lock()
	defer h.mu.Unlock()
	if other := h.live[id]; other != nil {
		return other
	}
	h.live[id] = ls
	h.srv.metrics.sessions.Inc()
	return ls
}

// claim takes the store claim on a session, waiting up to ClaimTTL for another owner's
// claim to lapse (a replica that died holds it until then).
func (h *hub) claim(ctx context.Context, id string) bool {
	cfg := h.srv.cfg
	deadline := time.Now().Add(cfg.ClaimTTL + time.Second)
	for {
		ok, _, err := cfg.Store.Claim(ctx, id, h.srv.owner, cfg.ClaimTTL)
		if err != nil && ctx.Err() != nil { // the page went, or cancelled its request
			return false
		}
		if err != nil {
			h.srv.log.Warn("claiming session", zap.Error(err))
			return true // the store is the authority on data; do not lock a user out on a claim error
		}
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// renewClaims keeps this process's claims alive while sessions are live here.
func (h *hub) renewClaims() {
	t := time.NewTicker(h.srv.cfg.ClaimTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-h.srv.renewing:
			return
		case <-t.C:
		}
		h.watchProxies()
		var ids []string
		var renewed []*liveSession
		for _, ls := range h.liveSessions() {
			ls.mu.Lock()
			if ls.created { // a session not created yet is claimed when it is created
				ids = append(ids, ls.id)
				renewed = append(renewed, ls)
			}
			ls.mu.Unlock()
		}
		if r, ok := h.srv.cfg.Store.(store.ClaimRenewer); ok {
			ctx, cancel := context.WithTimeout(context.Background(), h.srv.cfg.ClaimTTL/3)
			if err := r.RenewClaims(ctx, ids, h.srv.owner, h.srv.cfg.ClaimTTL); err != nil {
				h.srv.log.Debug("renewing claims", zap.Error(err))
			}
			cancel()
		} else {
			for _, id := range ids {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if _, _, err := h.srv.cfg.Store.Claim(ctx, id, h.srv.owner, h.srv.cfg.ClaimTTL); err != nil {
					h.srv.log.Debug("renewing claim", zap.Error(err))
				}
				cancel()
			}
		}
		h.releaseLetGo(renewed)
	}
}

// releaseLetGo releases again the claims of renewed sessions that evict let go while they
// were being renewed: the renewal can take a claim again after evict released it, and the
// session's next replica would then wait for it to lapse. Under ls.mu, as evict releases: a
// take-back (reviveLocked) claims after this.
func (h *hub) releaseLetGo(renewed []*liveSession) {
	for _, ls := range renewed {
		ls.mu.Lock()
		if ls.evicted {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := h.srv.cfg.Store.Release(ctx, ls.id, h.srv.owner); err != nil {
				ls.log.Debug("releasing claim", zap.Error(err))
			}
			cancel()
		}
		ls.mu.Unlock()
	}
}

// liveSessions returns the sessions live in this process. The caller locks each one itself,
// with h.mu released: the lock order is ls.mu before h.mu, never the reverse.
func (h *hub) liveSessions() []*liveSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	live := make([]*liveSession, 0, len(h.live))
	for _, ls := range h.live {
		live = append(live, ls)
	}
	return live
}

// touchLive marks every session attached to a socket of this process as used (an empty
// Append touches UpdatedAt), so the idle expiry never deletes a conversation whose tab is
// still open.
func (h *hub) touchLive(ctx context.Context) {
	for _, ls := range h.liveSessions() {
		ls.mu.Lock()
		attached := ls.conn != nil && ls.stored
		ls.mu.Unlock()
		if !attached {
			continue
		}
		if err := h.srv.cfg.Store.Append(ctx, ls.id, store.Batch{}); err != nil {
			h.srv.log.Debug("touching a live session", zap.Error(err))
		}
	}
}

// create makes a new session, optionally with a copied history. It lives in memory only,
// for as long as a socket is attached to it or a turn runs: the store gets it when its first
// turn starts (ensureCreated), and its history with the turn's first event (see flushLoop),
// so sessions nobody chats in cost no storage, and forks do not copy a history until they
// are used.
func (h *hub) create(ctx context.Context, origin string, page store.Page, history []chat.Message) (*liveSession, error) {
	id := randomID(16)
	ls := h.newLive(id, origin, page)
	ls.messages = history
	h.mu.Lock()
	h.live[id] = ls
	h.mu.Unlock()
	h.srv.metrics.sessions.Inc()
	ls.log.Debug("session created")
	return ls, nil
}

// detach is called when a socket ends.
func (h *hub) detach(c *pageConn) {
	c.markGone()
	if px := c.boundProxy(); px != nil {
		px.end("its socket closed")
	}
	if ls := c.boundSession(); ls != nil {
		h.detachFrom(ls, c)
	}
	c.bind(nil)
}

func (h *hub) detachFrom(ls *liveSession, c *pageConn) {
	ls.mu.Lock()
	if ls.owner == c {
		ls.owner = nil
	}
	if ls.conn == c {
		ls.conn = nil
		close(ls.connWait) // a turn waiting in currentConn looks again
		ls.connWait = make(chan struct{})
	}
	idle := ls.conn == nil && ls.turn == nil
	ls.mu.Unlock()
	if idle {
		h.evict(ls)
	}
}

// evict drops an idle session from memory and releases its claim.
func (h *hub) evict(ls *liveSession) {
	ls.waitFlushed(context.Background())
	ls.mu.Lock()
	if ls.conn != nil || ls.turn != nil || ls.evicted {
		ls.mu.Unlock()
		return
	}
	ls.evicted = true
	stored := ls.stored
	remote := ls.remote // the tab is on another replica: it takes the session over
	ls.remote = nil
	// Out of the hub and its claim released before ls.mu is: a request that takes the session
	// back (reviveLocked) does so after this, or its claim and hub entry would be undone here
	// while its turn runs (and another replica could claim the session next to it).
	h.mu.Lock()
	if h.live[ls.id] == ls {
		delete(h.live, ls.id)
		h.srv.metrics.sessions.Dec()
		if !stored {
			h.parkLocked(ls, time.Now())
		}
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if stored {
		if err := h.srv.cfg.Store.Release(ctx, ls.id, h.srv.owner); err != nil {
			ls.log.Debug("releasing claim", zap.Error(err))
		}
	}
	ls.mu.Unlock()
	if hook := h.srv.evictHook; hook != nil {
		hook(ls)
	}
	if !stored {
		return
	}
	if remote != nil {
		remote.closeLink()
		if err := h.srv.relay.send(ctx, remote.replica, relayMsg{Kind: relayReleased, Session: ls.id, Link: remote.link}); err != nil {
			ls.log.Debug("telling the tab's replica the session is free", zap.Error(err))
		}
	}
}
