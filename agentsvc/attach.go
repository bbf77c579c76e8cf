package agentsvc

// A socket attached to a live session (agent/session's answer sent, the events it lacks
// replayed), and a session let go taken back by the request that wanted it.

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// attach makes c the session's socket and sends it the events after from. Runs right
// after the agent/session result was queued, so the page gets them after the result.
func (ls *liveSession) attach(c *pageConn, from int64, older []store.Event) {
	for {
		gap, ok := ls.attachOnce(c, from, older)
		if !ok {
			return
		}
		// Events were stored after the answer's seq while the socket was detached, and the
		// session cooled since (its turn ended): they are in neither older nor the tail.
		more, err := ls.readGap(gap)
		if err != nil {
			ls.log.Warn("reading the events a resumed page lacks; it is sent back to resume", zap.Error(err))
			c.sendBack("the session store did not answer; reconnect to resume")
			return
		}
		older = append(older, more...)
	}
}

// attachOnce is one try of attach, under ls.mu. It reports ok false when it is done (the
// socket is attached, or must not be), and otherwise the seq after which the events it would
// replay are missing (ls.persisted is past what older and the tail hold): the caller reads
// them from the store, unlocked, and tries again.
func (ls *liveSession) attachOnce(c *pageConn, from int64, older []store.Event) (gap int64, ok bool) {
	// Read before ls.mu is taken (no lock is taken inside the session's). A socket given
	// another session since is no longer the owner (detachFrom), which is checked below.
	bound := c.boundSession()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for {
		if bound != ls || ls.owner != c {
			return 0, false // the socket moved on (or closed) meanwhile, or another socket took the session
		}
		if !ls.st.Let() {
			break
		}
		// Let go between resume and now: take it back (ls.mu is released while it is claimed,
		// so the checks above are made again).
		if why := ls.takeBackLocked(); why != "" {
			// Two copies must not both write: the page resumes the other one when it
			// reconnects.
			if ls.owner == c {
				ls.owner = nil
			}
			c.sendBack(why)
			return 0, false
		}
		if ls.st.Stale == session.TakenBack { // what was written meanwhile reaches the page now
			go ls.hub.guard("resync", func() {
				if ls.resync() == nil {
					ls.mu.Lock()
					ls.coolLocked() // read back for the page only: the idle tab leaves it to the store again
					ls.mu.Unlock()
				}
			})
		}
	}
	// older (read from the store before) plus the tail cover everything persisted, unless
	// the session cooled (and dropped its tail) since.
	var evs []store.Event
	seen := from
	for _, e := range older {
		if e.Seq > seen {
			evs = append(evs, e)
			seen = e.Seq
		}
	}
	for _, e := range ls.tail {
		if e.Seq > seen {
			evs = append(evs, e)
			seen = e.Seq
		}
	}
	if seen < ls.persisted && ls.st.Cold() && !ls.st.MustResync() {
		return seen, true
	}
	ls.conn = c
	close(ls.connWait)
	ls.connWait = make(chan struct{})
	ls.connSent = from
	evs = coalesceDeltas(evs)
	if len(evs) > replayMax {
		evs = evs[len(evs)-replayMax:]
	}
	for _, e := range evs {
		ls.sendLocked(e)
	}
	ls.coolLocked() // replayed: an idle session leaves its history to the store
	return 0, false
}

// readGap reads the stored events after seq that attach lacks, as a resume reads those after
// its lastSeq.
func (ls *liveSession) readGap(seq int64) ([]store.Event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return ls.replayFrom(ctx, seq)
}

// takeBackLocked takes back a session that evict let go (or is letting go) while a request
// for it was on its way: the answer of its agent/session (attach), an agent/chat whose socket
// went meanwhile (startTurn), or a page that comes back to a parked session (unpark). A
// stored one is claimed again, and because another replica may have claimed, written and let
// go of it meanwhile, it reads the store's state (resync: session.TakenBack) before it writes
// again. It returns why it cannot be taken back when another copy has it now: another replica
// claimed it, another socket loaded it again here, or the operator deleted it.
//
// ls.mu is held on entry and on return; it is released while a release in flight ends and
// while the claim is taken (a store call), so the caller looks at the session again after.
func (ls *liveSession) takeBackLocked() (moved string) {
	for {
		eff := ls.step(session.Command{Kind: session.TakeBack})
		switch {
		case eff.Has(session.Refused):
			return "its conversation was deleted"
		case eff.Has(session.WaitInFlight):
			ls.waitInFlightLocked()
			continue
		case !eff.Has(session.JoinHub):
			return "" // held here
		}
		ls.mu.Unlock()
		claimed, joined := ls.claimBack(eff.Has(session.ClaimAgain))
		ls.mu.Lock()
		ls.step(session.Command{Kind: session.Claimed, OK: joined})
		switch {
		case !claimed:
			return "its session moved to another replica; reconnect to resume it"
		case !joined:
			return "its session was loaded again meanwhile; reconnect to resume it"
		}
		return ""
	}
}

// claimBack takes back a session let go, with no lock held: its claim again when claim (it
// was stored), then its place in the hub. A panic (of the store's) ends it as not claimed, so
// that the session leaves session.Claiming and nobody waits for it for ever.
func (ls *liveSession) claimBack(claim bool) (claimed, joined bool) {
	defer func() {
		if v := recover(); v != nil {
			ls.hub.reportPanic(ls.log, "take_back", v)
			claimed, joined = false, false
		}
	}()
	claimed = !claim || ls.claimAgain()
	joined = claimed && ls.hub.rejoin(ls)
	return claimed, joined
}

// claimAgain claims a session evict let go again (evict released its claim): false when
// another replica holds it now. A store that does not answer does not lock the page out (as
// hub.claim). No lock is held.
func (ls *liveSession) claimAgain() bool {
	h := ls.hub
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ok, _, err := h.store.Claim(ctx, ls.id, h.owner, h.cfg.ClaimTTL)
	if err != nil {
		ls.log.Warn("claiming a session again", zap.Error(err))
		return true
	}
	return ok
}
