package agentsvc

// A live session: its state in memory, its socket, and what is sent to the socket on attach.

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// tailMax bounds the events a live session keeps in memory for quick resumes.
const tailMax = 64

// replayMax bounds the events sent again on one resume; older ones are in the messages.
const replayMax = 200

// liveSession is a session in memory. Events are numbered by emit, written to the store by
// one flusher at a time (with the messages that go with them), and only then sent to the
// attached socket, so a page never sees an event the store could lose.
//
// The store is the truth. A new session (or a fork) lives only in memory until its first
// turn: the turn's start creates it in the store (created, ensureCreated) before the model
// is called, and the flusher writes its history with the turn's first batch (stored). A
// write that fails (after a few quick retries) or conflicts is never dropped silently: the flusher
// records it in storeErr, numbers nothing more, cancels the running turn (which then ends
// with stopReason error and says the conversation could not be saved), and sends none of
// the unsaved events. Before the next turn writes, resync reads seq, messages and the log's
// tail back from the store, so seq stays contiguous with what is stored.
//
// Lock order: mu, then hub.mu.
type liveSession struct {
	id     string
	origin string
	hub    *hub
	log    *zap.Logger
	namer  *tools.Namer

	mu        mutex
	seq       int64 // last seq given out
	persisted int64 // last seq written to the store
	pending   store.Batch
	// pendingText is the text_delta that ends pending while it may take more text
	// (mergeTextLocked); pendingDelta is its text so far. Its event's Data is set when
	// sealTextLocked encodes it.
	pendingText  *wire.TextDeltaEvent
	pendingDelta []byte
	flushed      chan struct{} // closed when pending is empty and no flush runs
	tail         []store.Event // recent persisted events, for resumes
	messages     []chat.Message
	page         store.Page
	conn         *pageConn
	// owner is the socket agent/session last gave the session to. It is set when that
	// answer is decided (resume checks and sets it in one step, so two sockets resuming at
	// once cannot both get it), and conn becomes owner once the answer is sent (attach).
	owner *pageConn
	// remote is the page of a running turn when its socket is on another replica (relay.go);
	// conn and owner are nil then.
	remote   *remotePage
	connSent int64         // last seq sent to conn
	connWait chan struct{} // closed (and replaced) whenever conn changes: attach or detach
	turn     *runningTurn
	// countedCut is the turn that ended here while its writes failed: it was counted (as the
	// error its page was answered), and a resync that closes it does not count it again.
	countedCut string
	// st is the session's life (agentsvc/session): what the store holds of it, where its
	// history is, whether this replica holds it, whether the store must be read again, and
	// whether a write is in flight. Only step assigns it.
	st session.State
	// home is closed (and replaced) whenever a release, a claim or a resync in flight ends
	// (st.Home leaves Releasing or Claiming, st.Reading ends): a request that found one waits
	// for it (session.WaitHome) and asks again.
	home chan struct{}
}

// step applies command c to the session's state: the one place it changes. ls.mu is held.
func (ls *liveSession) step(c session.Command) session.Effects {
	was := ls.st
	st, eff := session.Step(ls.st, c)
	ls.st = st
	if was.Home != st.Home && (was.Home == session.Releasing || was.Home == session.Claiming) || was.Reading && !st.Reading {
		close(ls.home)
		ls.home = make(chan struct{})
	}
	return eff
}

// waitHomeLocked waits, with ls.mu released, until a release, claim or resync in flight
// has ended.
// ls.mu is held on entry and on return.
func (ls *liveSession) waitHomeLocked() {
	ch := ls.home
	ls.mu.Unlock()
	<-ch
	ls.mu.Lock()
}

func (h *hub) newLive(id, origin string, page store.Page, st session.State) *liveSession {
	return &liveSession{
		id:       id,
		origin:   origin,
		hub:      h,
		log:      h.log.WithLazy(zap.String("session", shortID(id))), // no encoder of its own until it logs
		namer:    tools.NewNamer(),
		page:     page,
		connWait: make(chan struct{}),
		home:     make(chan struct{}),
		st:       st,
	}
}

// shortID keeps session ids out of logs in full.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

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
			go ls.hub.srv.guard("resync", func() { _ = ls.resync() })
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
		case eff.Has(session.WaitHome):
			ls.waitHomeLocked()
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
			ls.hub.srv.reportPanic(ls.log, "take_back", v)
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
	srv := ls.hub.srv
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ok, _, err := srv.store.Claim(ctx, ls.id, srv.owner, srv.cfg.ClaimTTL)
	if err != nil {
		ls.log.Warn("claiming a session again", zap.Error(err))
		return true
	}
	return ok
}

// coalesceDeltas merges runs of text_delta events of one turn into one event that carries
// the last seq of the run, so a resume sends a few events, not one per token.
func coalesceDeltas(evs []store.Event) []store.Event {
	out := make([]store.Event, 0, len(evs))
	var run *wire.TextDeltaEvent
	var runSeq int64
	flush := func() {
		if run != nil {
			run.Seq = runSeq
			b, _ := json.Marshal(run)
			out = append(out, store.Event{Seq: runSeq, Data: b})
			run = nil
		}
	}
	for _, e := range evs {
		var d wire.TextDeltaEvent
		if json.Unmarshal(e.Data, &d) == nil && d.Type == wire.EventTextDelta {
			if run != nil && run.TurnID == d.TurnID {
				run.Delta += d.Delta
				runSeq = e.Seq
				continue
			}
			flush()
			run, runSeq = &d, e.Seq
			continue
		}
		flush()
		out = append(out, e)
	}
	flush()
	return out
}

// sendLocked sends one persisted event to the attached socket. ls.mu is held.
func (ls *liveSession) sendLocked(e store.Event) {
	if ls.conn == nil || e.Seq <= ls.connSent {
		return
	}
	ls.connSent = e.Seq
	if err := notifyEvent(ls.conn.peer, e.Data, ls.id); err != nil {
		ls.log.Debug("sending event", zap.Error(err))
	}
}

// notifyEvent sends the stored event data to a page as agent/event, with "sessionId" put
// at the start of the object as it is written out, without a copy of the event.
func notifyEvent(peer *wsrpc.Peer, data json.RawMessage, id string) error {
	if len(data) < 2 || data[0] != '{' {
		return peer.NotifyEncoded(context.Background(), wire.MethodAgentEvent, data)
	}
	var buf [64]byte
	head := append(append(append(buf[:0], `{"sessionId":"`...), id...), '"')
	if len(data) > 2 {
		head = append(head, ',')
	}
	return peer.NotifyEncoded(context.Background(), wire.MethodAgentEvent, head, data[1:])
}

// closeConn closes the attached socket, if any, so that its page resumes from the store.
func (ls *liveSession) closeConn(why string) {
	ls.mu.Lock()
	c := ls.conn
	ls.mu.Unlock()
	if c != nil {
		c.sendBack(why)
	}
}

// currentPage returns the attached page (a socket of this replica, or one on another
// replica while a turn runs here), waiting up to wait for one.
func (ls *liveSession) currentPage(ctx context.Context, wait time.Duration) pageLink {
	var timer *time.Timer // only when there is no page to return at once
	for {
		ls.mu.Lock()
		c, rp, ch := ls.conn, ls.remote, ls.connWait
		ls.mu.Unlock()
		var link pageLink
		switch {
		case c != nil:
			link = c
		case rp != nil:
			link = rp
		}
		if link != nil && !link.leaving() {
			select {
			case <-link.closed():
				// closing; wait for detach/re-attach below
			default:
				return link
			}
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-ch: // attached, or detached (a closing conn detaches once its reading ends)
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return tools.Truncate(s, n)
}
