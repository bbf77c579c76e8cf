package agentsvc

// The hub of the sessions live in this process: creating, parking, claiming, detaching and
// evicting them.

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// hub holds the sessions live in this process: attached to a socket or running a turn.
//
// Its sessions' store, owner id, configuration, metrics, logger and relay are handed in at
// construction (newHub); srv is left for what the server does beyond them (a deletion, a
// site's settings, containing a panic).
//
// hub.mu guards the maps only: no other lock is taken while it is held (lockcheck.go).
type hub struct {
	*guardian
	srv     *Server
	store   store.Store // the server's store, through the lock check in tests
	owner   string      // this process's id as a session owner
	cfg     *Config     // read only
	metrics *metrics
	log     *zap.Logger
	relay   *relay // the other replicas; nil in one process

	mu   mutex
	live map[string]*liveSession
	// parked are sessions nobody chatted in (never stored) whose socket went: kept for
	// parkFor, at most parkMax, oldest first out (parkQ, in parking order), so that the
	// tab's next page load resumes them.
	parked  map[string]parkedSession
	parkQ   []parkedEntry
	parkMax int
	// The claim's owner is this process, the same for every copy of a session it loads, so
	// the release of a copy let go could delete the claim a newer copy took. releasing holds
	// the sessions whose claim a copy let go is being released (closed when the store has
	// answered), and loading how many loads (resumeFor) of a session are claiming it or have
	// not yet put their copy in the hub: a load claims after the release on its way, and a
	// release is not sent while a load of its session is under way or a newer copy is live.
	releasing map[string]chan struct{}
	loading   map[string]int
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
	h := &hub{guardian: s.guardian, srv: s, store: s.store, owner: s.owner, cfg: &s.cfg, metrics: s.metrics, log: s.log, relay: s.relay,
		live: map[string]*liveSession{}, parked: map[string]parkedSession{}, parkMax: parkMax,
		releasing: map[string]chan struct{}{}, loading: map[string]int{}}
	go h.loopUntil(h.srv.renewing, "renew_claims", h.renewClaims)
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

// unpark takes back a parked session of origin, live again (nil when there is none; the
// copy live here when another socket loaded it again meanwhile).
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
	why := ls.takeBackLocked()
	ls.mu.Unlock()
	if why == "" {
		return ls
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live[id]
}

// rejoin puts a session taken back (takeBackLocked) in the hub again, out of the parked ones:
// false when another copy of it is live here (another socket loaded it again meanwhile).
func (h *hub) rejoin(ls *liveSession) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	other := h.live[ls.id]
	if other != nil && other != ls {
		return false
	}
	if other == nil {
		h.live[ls.id] = ls
		h.metrics.sessions.Inc()
	}
	if p, ok := h.parked[ls.id]; ok && p.ls == ls {
		delete(h.parked, ls.id)
	}
	return true
}

// leave takes a session that evict lets go out of the hub, parked when it was never stored.
func (h *hub) leave(ls *liveSession, park bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live[ls.id] == ls {
		delete(h.live, ls.id)
		h.metrics.sessions.Dec()
		if park {
			h.parkLocked(ls, time.Now())
		}
	}
}

// claim takes the store claim on a session, waiting up to ClaimTTL for another owner's
// claim to lapse (a replica that died holds it until then).
func (h *hub) claim(ctx context.Context, id string) bool {
	cfg := h.cfg
	deadline := time.Now().Add(cfg.ClaimTTL + time.Second)
	for {
		ok, _, err := h.store.Claim(ctx, id, h.owner, cfg.ClaimTTL)
		if err != nil && ctx.Err() != nil { // the page went, or cancelled its request
			return false
		}
		if err != nil {
			h.log.Warn("claiming session", zap.Error(err))
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

// claimToLoad claims session id for a load of it (resumeFor) after any release of the claim
// on its way here, and counts the load until loaded is called (also when it returns false).
func (h *hub) claimToLoad(ctx context.Context, id string) bool {
	for {
		h.mu.Lock()
		ch := h.releasing[id]
		if ch == nil {
			h.loading[id]++
		}
		h.mu.Unlock()
		if ch == nil {
			break
		}
		if hook := h.srv.claimWaitHook; hook != nil {
			hook(id)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
	if !h.claim(ctx, id) {
		h.loaded(id)
		return false
	}
	return true
}

// loaded ends a load of session id counted by claimToLoad.
func (h *hub) loaded(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loading[id]--; h.loading[id] <= 0 {
		delete(h.loading, id)
	}
}

// renewClaims keeps this process's claims alive while sessions are live here.
func (h *hub) renewClaims() {
	t := time.NewTicker(h.cfg.ClaimTTL / 3)
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
			if ls.st.Created() { // a session not created yet is claimed when it is created
				ids = append(ids, ls.id)
				renewed = append(renewed, ls)
			}
			ls.mu.Unlock()
		}
		if r, ok := h.cfg.Store.(store.ClaimRenewer); ok {
			ctx, cancel := context.WithTimeout(context.Background(), h.cfg.ClaimTTL/3)
			if err := r.RenewClaims(ctx, ids, h.owner, h.cfg.ClaimTTL); err != nil {
				h.log.Debug("renewing claims", zap.Error(err))
			}
			cancel()
		} else {
			for _, id := range ids {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if _, _, err := h.store.Claim(ctx, id, h.owner, h.cfg.ClaimTTL); err != nil {
					h.log.Debug("renewing claim", zap.Error(err))
				}
				cancel()
			}
		}
		h.releaseLetGo(renewed)
	}
}

// releaseLetGo releases again the claims of renewed sessions that evict let go while they
// were being renewed: the renewal can take a claim again after evict released it, and the
// session's next replica would then wait for it to lapse. A take-back waits for this release
// (session.Releasing), as for evict's: it claims after it.
func (h *hub) releaseLetGo(renewed []*liveSession) {
	for _, ls := range renewed {
		// A release on its way ends first (and steps Released before it says so): the renewal
		// may have taken the claim after that release's store call, and Renewed while the
		// session is still Releasing changes nothing.
		h.mu.Lock()
		prev := h.releasing[ls.id]
		h.mu.Unlock()
		if prev != nil {
			<-prev // bounded: each release's store call is (releaseClaim)
		}
		ls.mu.Lock()
		eff := ls.step(session.Command{Kind: session.Renewed})
		ls.mu.Unlock()
		if eff.Has(session.ReleaseClaim) {
			h.releaseClaim(ls)
		}
	}
}

// releaseClaim releases a session's claim for evict or releaseLetGo, and ends the release
// (session.Released). No lock is held.
func (h *hub) releaseClaim(ls *liveSession) {
	done := h.startRelease(ls)
	defer func() { // also after a panic of the store's: nobody waits for the release for ever
		ls.mu.Lock()
		ls.step(session.Command{Kind: session.Released})
		ls.mu.Unlock()
		if done != nil {
			done() // after Released: whoever waited for this release finds the session let go
		}
	}()
	if done == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.store.Release(ctx, ls.id, h.owner); err != nil {
		ls.log.Debug("releasing claim", zap.Error(err))
	}
}

// startRelease records that the claim of ls, a copy let go, is being released (after any
// other release of it on its way), and returns the function that ends that; nil when the
// claim is not ls's to release: a newer copy of the session is live here or being loaded (its
// claim has the same owner).
func (h *hub) startRelease(ls *liveSession) func() {
	for {
		h.mu.Lock()
		if other := h.live[ls.id]; (other != nil && other != ls) || h.loading[ls.id] > 0 {
			h.mu.Unlock()
			return nil
		}
		prev := h.releasing[ls.id]
		if prev == nil {
			break
		}
		h.mu.Unlock()
		<-prev // each release's store call is bounded (releaseClaim)
	}
	ch := make(chan struct{})
	h.releasing[ls.id] = ch
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.releasing, ls.id)
		h.mu.Unlock()
		close(ch)
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
		attached := ls.conn != nil && ls.st.Stage == session.Stored
		ls.mu.Unlock()
		if !attached {
			continue
		}
		if err := h.store.Append(ctx, ls.id, store.Batch{}); err != nil {
			h.log.Debug("touching a live session", zap.Error(err))
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
	ls := h.newLive(id, origin, page, session.State{})
	ls.messages = history
	h.mu.Lock()
	h.live[id] = ls
	h.mu.Unlock()
	h.metrics.sessions.Inc()
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
	ls.mu.Unlock()
	h.evict(ls)
}

// evict lets a session go when it is idle (idleLocked): out of the hub (parked when it was
// never stored, for its tab's next page load) and its claim released, with no lock held. A
// request that takes it back meanwhile waits for the release (session.Releasing) and claims it
// after, so the release never undoes its claim or hub entry while its turn runs.
func (h *hub) evict(ls *liveSession) {
	ls.waitFlushed(context.Background())
	ls.mu.Lock()
	var eff session.Effects
	for {
		eff = ls.step(session.Command{Kind: session.Evict, Busy: !ls.idleLocked()})
		if !eff.Has(session.WaitInFlight) {
			break
		}
		ls.waitInFlightLocked() // another evict, or a take-back, is under way: its outcome decides
	}
	if !eff.Has(session.LeaveHub) {
		ls.mu.Unlock()
		return
	}
	remote := ls.remote // the tab is on another replica: it takes the session over
	ls.remote = nil
	ls.mu.Unlock()
	h.leave(ls, eff.Has(session.Park))
	if eff.Has(session.ReleaseClaim) {
		h.releaseClaim(ls)
	} else {
		ls.mu.Lock()
		ls.step(session.Command{Kind: session.Released})
		ls.mu.Unlock()
	}
	if hook := h.srv.evictHook; hook != nil {
		hook(ls)
	}
	if remote == nil {
		return
	}
	// No turn uses the page on the other replica now: its link ends either way (a parked
	// session, never stored or deleted, has no claim to give its replica).
	remote.closeLink()
	if !eff.Has(session.ReleaseClaim) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.relay.send(ctx, remote.replica, relayMsg{Kind: relayReleased, Session: ls.id, Link: remote.link}); err != nil {
		ls.log.Debug("telling the tab's replica the session is free", zap.Error(err))
	}
}
