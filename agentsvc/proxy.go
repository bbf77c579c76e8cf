package agentsvc

// The socket side of the relay (see relay.go): a proxy serves a page whose session's turn runs
// on another replica. It sends the page the session's events as the store publishes them,
// runs the holder's tool calls on the page, passes agent/chat and agent/cancel on, and takes
// the session over once the holder lets it go or dies.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// proxy is a page socket of this replica whose session is held by another replica.
//
// Lock order: mu is a leaf but for the socket's send queue (Notify does not block).
type proxy struct {
	h      *hub
	c      *pageConn
	id     string
	origin string
	link   string
	holder string
	log    *zap.Logger

	mu      mutex
	started bool  // the agent/session result went out: events may follow
	sent    int64 // last seq sent to the page
	over    bool  // ended, or taken over
	unsub   func()
	kick    chan struct{} // 1-buffered: read the log from the store (a gap, or the bus broke)
	stop    chan struct{}

	// bound is closed once the proxy serves its socket (start: the page has the answer and
	// sent is set) or ended: a release that comes before that waits for it.
	bound     chan struct{}
	markBound func()
	takeOnce  sync.Once
	taken     chan struct{} // closed once takeOver is done
	taking    atomic.Bool   // takeOver is resuming the session (cutTurnLabel)
}

func (h *hub) newProxy(c *pageConn, id, origin string) *proxy {
	px := &proxy{h: h, c: c, id: id, origin: origin, link: c.id + "-" + randomID(4),
		log: c.log, kick: make(chan struct{}, 1), stop: make(chan struct{}), taken: make(chan struct{}),
		bound: make(chan struct{})}
	px.markBound = sync.OnceFunc(func() { close(px.bound) })
	return px
}

func (px *proxy) ended() bool {
	px.mu.Lock()
	defer px.mu.Unlock()
	return px.over
}

// follow subscribes to the session's appended events. It runs before the holder is asked,
// so that nothing appended from then on is missed.
func (px *proxy) follow(ctx context.Context) error {
	unsub, err := px.h.relay.bus.Subscribe(ctx, store.EventsChannel(px.id), px.onEvents)
	if err != nil {
		return err
	}
	px.mu.Lock()
	px.unsub = unsub
	px.mu.Unlock()
	go px.h.guard("proxy_pump", px.pump)
	return nil
}

// onEvents is the bus's callback for the session's channel: the next events in order go to
// the page at once; a gap (or a broken bus) has the pump read the log from the store.
func (px *proxy) onEvents(ch string, msg []byte) {
	if msg == nil {
		px.poke()
		return
	}
	_, _, evs, err := store.DecodeAppended(ch, msg)
	if err != nil {
		px.poke()
		return
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	if !px.started || px.over {
		return // start reads the store itself
	}
	for _, e := range evs {
		if e.Seq <= px.sent {
			continue
		}
		if e.Seq != px.sent+1 {
			px.poke()
			return
		}
		px.sendLocked(e)
	}
}

func (px *proxy) poke() {
	select {
	case px.kick <- struct{}{}:
	default:
	}
}

// pump reads the session's log from the store when poked, and sends what the page lacks.
func (px *proxy) pump() {
	st := px.h.store
	for {
		select {
		case <-px.stop:
			return
		case <-px.kick:
		}
		px.mu.Lock()
		from, ready := px.sent, px.started && !px.over
		px.mu.Unlock()
		if !ready {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		evs, err := st.EventsAfter(ctx, px.id, from, 0)
		cancel()
		if err != nil {
			px.log.Debug("proxy: reading the session's events", zap.Error(err))
			continue
		}
		px.mu.Lock()
		for _, e := range evs {
			if !px.over && e.Seq == px.sent+1 {
				px.sendLocked(e)
			}
		}
		px.mu.Unlock()
	}
}

func (px *proxy) sendLocked(e store.Event) {
	px.sent = e.Seq
	if err := notifyEvent(px.c.peer, e.Data, px.id); err != nil {
		px.log.Debug("sending event", zap.Error(err))
	}
}

// start runs once the agent/session result is queued: the events after from (older, read
// from the store before the result, coalesced as a resume sends them), then whatever was
// appended since.
func (px *proxy) start(from int64, older []store.Event) {
	px.mu.Lock()
	if px.over {
		px.mu.Unlock()
		return
	}
	px.started = true
	px.sent = from
	var evs []store.Event
	for _, e := range older {
		if e.Seq > from {
			evs = append(evs, e)
		}
	}
	evs = coalesceDeltas(evs)
	if len(evs) > replayMax {
		evs = evs[len(evs)-replayMax:]
	}
	for _, e := range evs {
		px.sendLocked(e)
	}
	px.mu.Unlock()
	px.markBound() // a take-over may start: it goes on from sent
	px.poke()
}

// end stops the proxy: no more events, no more calls. tellHolder sends the holder a detach,
// so that its turn's waiting tool calls fail at once (the page is gone).
func (px *proxy) end(why string) {
	if !px.stopFollowing() {
		return
	}
	px.c.bindProxy(px, nil)
	r := px.h.relay
	if why != "" && px.holder != "" {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		_ = r.send(ctx, px.holder, relayMsg{Kind: relayDetach, Session: px.id, Link: px.link})
		cancel()
	}
}

// stopFollowing ends the proxy's part (events, calls) but leaves it bound to its socket;
// false when it had ended already.
func (px *proxy) stopFollowing() bool {
	px.mu.Lock()
	if px.over {
		px.mu.Unlock()
		return false
	}
	px.over = true
	unsub := px.unsub
	px.mu.Unlock()
	px.markBound()
	close(px.stop)
	if unsub != nil {
		unsub()
	}
	r := px.h.relay
	r.mu.Lock()
	if r.proxies[px.link] == px {
		delete(r.proxies, px.link)
	}
	r.mu.Unlock()
	return true
}

// pageTools answers the holder's tools/list with the page's current tools (late:
// pageLink.pageTools).
func (px *proxy) pageTools(late bool) relayMsg {
	ctx, cancel := context.WithTimeout(context.Background(), px.h.cfg.HandshakeTimeout)
	defer cancel()
	px.c.awaitTools(ctx, late)
	list := px.c.mcp.Tools()
	out := make([]wire.PageTool, len(list))
	for i, t := range list {
		out[i] = t.PageTool
	}
	return relayMsg{Status: stOK, Tools: out}
}

// takeOver makes the session live on this replica, attached to the proxy's socket, once the
// holder let it go (or died: resume then waits for its claim to lapse and closes the cut turn
// as interrupted). The page gets what it lacks from the store; nothing is sent twice.
func (px *proxy) takeOver() {
	select {
	case <-px.bound:
	case <-time.After(relayWait): // its agent/session never answered
	}
	px.takeOnce.Do(func() {
		defer close(px.taken)
		c := px.c
		if c.boundProxy() != px {
			return
		}
		// The socket keeps the proxy until it has the session: an agent/chat meanwhile waits
		// for this take-over (proxyChat) instead of finding no session.
		px.stopFollowing()
		px.mu.Lock()
		sent := px.sent // read once it sends nothing more: where the next sender goes on
		px.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), px.h.cfg.ClaimTTL+2*relayWait)
		defer cancel()
		px.taking.Store(true) // a turn the holder left running is counted as taken over
		ls, err := px.h.resumeFor(ctx, c, px.id, true)
		px.taking.Store(false)
		var pe *proxied
		if errors.As(err, &pe) { // another replica claimed it since: the socket follows it there
			if px.handTo(pe.px, sent) {
				px.log.Debug("the session moved on to another replica before the take-over; following it there", zap.String("holder", pe.px.holder))
				return
			}
			pe.px.end("not used")
		}
		if err == nil {
			err = ls.warm()
		}
		if err != nil {
			c.bindProxy(px, nil)
			px.log.Info("could not take over a session from another replica; the page reconnects", zap.Error(err))
			c.sendBack("its session moved; reconnect to resume it")
			return
		}
		if hook := px.h.srv.takeOverHook; hook != nil {
			hook(px)
		}
		c.mu.Lock()
		gone := c.gone
		mine := c.proxy == px // no agent/session since: the page still waits for this session
		if !gone && mine {
			c.session = ls
			c.proxy = nil
		}
		boundMeanwhile := c.session == ls // the page's own agent/session resumed it since
		c.mu.Unlock()
		switch {
		case !gone && !mine && boundMeanwhile: // that answer attaches it
			return
		case gone || !mine: // the socket ended meanwhile (its page left), or its page asked for
			// another session: this session must not stay on it
			px.h.detachFrom(ls, c)
			return
		}
		older, err := ls.replayFrom(ctx, sent)
		if err != nil { // attached over a gap, the page would miss events for good: it resumes
			c.bind(nil)
			px.h.detachFrom(ls, c)
			c.sendBack("its session's events could not be read; reconnect to resume it")
			return
		}
		ls.attach(c, sent, older)
		px.log.Debug("took over a session from another replica")
	})
	<-px.taken
}

// handTo makes next, a proxy that follows the session's new holder (proxyTo with follow), the
// socket's proxy in place of px, going on after the events px sent: false when the socket
// ended meanwhile or its page asked for a session again (next is then the caller's to end).
func (px *proxy) handTo(next *proxy, sent int64) bool {
	c := px.c
	c.mu.Lock()
	ok := !c.gone && c.proxy == px
	if ok {
		c.proxy = next
	}
	c.mu.Unlock()
	if ok {
		next.start(sent, nil)
	}
	return ok
}

// bindProxy sets the socket's proxy to next if it is old (nil old: any).
func (c *pageConn) bindProxy(old, next *proxy) {
	c.mu.Lock()
	if old == nil || c.proxy == old {
		c.proxy = next
	}
	c.mu.Unlock()
}

func (c *pageConn) boundProxy() *proxy {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proxy
}

// watchProxies takes over the sessions whose holder stopped renewing its claim (it died):
// run every ClaimTTL/3 with the claims' renewal.
func (h *hub) watchProxies() {
	r := h.relay
	if r == nil {
		return
	}
	r.mu.Lock()
	pxs := make([]*proxy, 0, len(r.proxies))
	for _, px := range r.proxies {
		pxs = append(pxs, px)
	}
	r.mu.Unlock()
	for _, px := range pxs {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		ok, _, err := h.store.Claim(ctx, px.id, h.owner, h.cfg.ClaimTTL)
		cancel()
		if err == nil && ok {
			px.log.Info("the replica running this session's turn stopped renewing its claim; taking the session over")
			go h.guard("proxy_take_over", px.takeOver)
		}
	}
}

// cutTurnLabel is byomcp_turns_total's label for a turn left running in the store that is
// closed as session id is resumed for socket c: turnTakenOver when c's proxy is taking the
// session over from the replica that ran the turn (proxy.takeOver; the socket keeps its proxy
// until it has the session), turnInterrupted otherwise.
func cutTurnLabel(c *pageConn, id string) string {
	if px := c.boundProxy(); px != nil && px.id == id && px.taking.Load() {
		return turnTakenOver
	}
	return turnInterrupted
}

var errForkNeeded = errors.New("session is live elsewhere")

// proxied is resume's answer when the session's turn runs on another replica: the socket is
// served by the proxy (openProxied).
type proxied struct {
	px  *proxy
	rep *relayMsg
}

func (*proxied) Error() string { return "the session's turn runs on another replica" }
