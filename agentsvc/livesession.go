package agentsvc

// A live session: its state in memory, its socket, and what is sent to the socket on attach.

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
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
	conn         socket
	// owner is the socket agent/session last gave the session to. It is set when that
	// answer is decided (resume checks and sets it in one step, so two sockets resuming at
	// once cannot both get it), and conn becomes owner once the answer is sent (attach).
	owner socket
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
	// settled is closed (and replaced) whenever a release, a claim or a resync in flight ends
	// (st.Home leaves Releasing or Claiming, st.Reading ends): a request that found one waits
	// for it (session.WaitInFlight) and asks again.
	settled chan struct{}
}

// step applies command c to the session's state: the one place it changes. ls.mu is held.
func (ls *liveSession) step(c session.Command) session.Effects {
	was := ls.st
	st, eff := session.Step(ls.st, c)
	ls.st = st
	if was.Home != st.Home && (was.Home == session.Releasing || was.Home == session.Claiming) || was.Reading && !st.Reading {
		close(ls.settled)
		ls.settled = make(chan struct{})
	}
	return eff
}

// waitInFlightLocked waits, with ls.mu released, until a release, claim or resync in flight
// has ended.
// ls.mu is held on entry and on return.
func (ls *liveSession) waitInFlightLocked() {
	ch := ls.settled
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
		settled:  make(chan struct{}),
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
	if err := ls.conn.sendEvent(e.Data, ls.id); err != nil {
		ls.log.Debug("sending event", zap.Error(err))
	}
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

// socket is a page's WebSocket on this replica (a pageConn) as the live session uses it: a
// page a turn can use, that the session's events are sent to and that the session can close.
type socket interface {
	pageLink
	// sendEvent sends stored event data to the page as agent/event of session id.
	sendEvent(data json.RawMessage, id string) error
	// notify sends one notification that is not part of the session's log.
	notify(method string, params any) error
	// sendBack closes the socket so that its page resumes from the store.
	sendBack(why string)
	// closeWith closes the socket for good (code 1000) with reason.
	closeWith(reason string)
	// alive tells whether the socket still serves a live tab: it does not say it navigates
	// away and answers a ping within wait. One that does not answer is closed.
	alive(ctx context.Context, wait time.Duration) bool
}

// pageLink is the page a turn uses: a socket of this replica (pageConn) or one on another
// replica (remotePage).
type pageLink interface {
	// pageTools returns the page's tools; ok is false when the page turned out to be gone.
	// With late, a page that has none yet is given until Config.LateTools after its socket
	// opened to announce some (a page that registers its tools once its data has loaded).
	pageTools(ctx context.Context, late bool) (list []*pagemcp.Tool, ok bool)
	callTool(ctx context.Context, name string, args json.RawMessage) tools.Outcome
	// confirmCall asks the page to have the visitor confirm a call of a server tool
	// (agent/confirm; tool is what the card shows of it): ok when allowed, with the
	// arguments the visitor edited (nil: none), else the outcome that says why it does not run.
	confirmCall(ctx context.Context, name string, args json.RawMessage, tool *wire.ConfirmTool) (out tools.Outcome, edited json.RawMessage, ok bool)
	// elicit asks the page to have the visitor answer a server's request for input
	// (agent/elicit): pagemcp.Client.Elicit's answer.
	elicit(ctx context.Context, p wire.ElicitParams) (res wire.ElicitResult, missed string, again bool)
	leaving() bool
	closed() <-chan struct{}
}

// idleLocked is the one answer to whether nothing uses the session here, so that evict lets
// it go: no socket of this replica is attached to it and no turn runs. (A socket given it
// by agent/session and not attached yet takes it back if it was let go meanwhile: attach.)
// ls.mu is held.
func (ls *liveSession) idleLocked() bool {
	return ls.conn == nil && ls.turn == nil
}

// signalConnLocked wakes a turn waiting for its page (currentPage). ls.mu is held.
func (ls *liveSession) signalConnLocked() {
	close(ls.connWait)
	ls.connWait = make(chan struct{})
}

// replayFrom reads the stored events after lastSeq that a resumed page is sent again (none
// when lastSeq < 0): at most replayMax*4 from lastSeq and, when there are more, the latest
// ones (the tail of an idle session is in the store), as attach sends the last replayMax of
// what it gets. A store that does not answer is wire.ErrStoreDown unless the session's tail
// in memory holds what is missing: a page is never told it is up to date over a gap.
func (ls *liveSession) replayFrom(ctx context.Context, lastSeq int64) ([]store.Event, error) {
	if lastSeq < 0 {
		return nil, nil
	}
	st := ls.hub.store
	older, err := st.EventsAfter(ctx, ls.id, lastSeq, replayMax*4)
	need := lastSeq // the events after need are still to be read
	if err == nil && len(older) == replayMax*4 {
		need = max(lastSeq, ls.persistedSeq()-tailMax)
		var more []store.Event
		more, err = st.EventsAfter(ctx, ls.id, need, 0)
		older = append(older, more...)
	}
	if err == nil {
		return older, nil
	}
	if ctx.Err() != nil { // the page went, or cancelled its request
		return nil, ctx.Err()
	}
	ls.mu.Lock()
	covered := ls.persisted <= need || (len(ls.tail) > 0 && ls.tail[0].Seq <= need+1)
	ls.mu.Unlock()
	if covered {
		return older, nil
	}
	ls.log.Warn("reading events to replay", zap.Error(err))
	return nil, wire.ErrStoreDown
}

type runningTurn struct {
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{}
	result wire.ChatResult
	// caller is the socket whose agent/chat started the turn; replied is closed once that
	// request's answer is queued. The turn holds Server.turns until then, so that Shutdown
	// does not close the socket before the page has its answer.
	caller  *pageConn
	replied chan struct{}
	// clientTurnID is the page's id for the message (agent/chat clientTurnId); startSeq the
	// seq of its turn_start. Both are set before the turn is visible in liveSession.turn.
	clientTurnID string
	startSeq     int64
	// ending is set just before the turn's turn_end is numbered: the page may see it (and
	// send its next message) before the turn has let the session go, so the next turn waits
	// for it (endingWait) instead of being refused.
	ending atomic.Bool
}

// endingWait bounds how long a new turn waits for the previous one to finish ending.
const endingWait = 5 * time.Second

// waitEnded waits (bounded) for a turn whose turn_end is out to let the session go; false
// when it is not ending, or did not finish in time.
func (rt *runningTurn) waitEnded() bool {
	if !rt.ending.Load() {
		return false
	}
	select {
	case <-rt.done:
		return true
	case <-time.After(endingWait):
		return false
	}
}

// persistedSeq is the last seq written to the store.
func (ls *liveSession) persistedSeq() int64 {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.persisted
}
