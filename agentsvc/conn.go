package agentsvc

// One page socket: its peer, its MCP client (pagemcp), its page → agent requests in the
// order sent, and the session it serves.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/jsonerr"
	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// pageConn is one page socket: its JSON-RPC peer, the MCP client of the page's tools
// (agentsvc/pagemcp), and the session it serves, attached by agent/session.
//
// lastOp is changed only by the read goroutine (the start of each agent/session, agent/chat
// and agent/cancel; see Server.registerHandlers).
//
// Lock order: liveSession.mu, then pageConn.mu (attach holds the first and calls
// boundSession); no call to the page is made under mu.
type pageConn struct {
	id     string
	origin string
	client string // the TCP remote address's host, for the per-client budgets ("" = none)
	since  time.Time
	peer   *wsrpc.Peer
	mcp    *pagemcp.Client
	log    *zap.Logger
	// handshakeTimeout bounds the wait for the page's first tools/list before a call.
	handshakeTimeout time.Duration
	lateTools        time.Duration // Config.LateTools

	// lastOp is closed when the page's last request that changes or uses its session
	// (agent/session, agent/chat, agent/cancel) has been handled: the next one waits for it,
	// so the requests of one socket take effect in the order they were sent. Read goroutine only.
	lastOp <-chan struct{}

	mu      mutex
	session *liveSession
	proxy   *proxy // its session's turn runs on another replica (proxy.go); session is nil then
	gone    bool   // the socket ended and was detached: nothing may bind to it any more
}

// newPageConn makes the page socket of mc's connection, with its peer and its MCP client.
func (s *Server) newPageConn(mc wsrpc.MessageConn, origin, client string) *pageConn {
	id := randomID(6)
	// Lazy: an idle socket that logs nothing holds no encoder of its own (zap's With clones
	// the encoder and its 1 KiB buffer at once; thousands of open tabs log nothing).
	log := s.log.WithLazy(zap.String("conn", id))
	done := make(chan struct{})
	close(done)
	c := &pageConn{id: id, origin: origin, client: client, since: time.Now(), log: log, lastOp: done, handshakeTimeout: s.cfg.HandshakeTimeout, lateTools: s.cfg.LateTools}
	c.peer = wsrpc.NewPeer(mc, wsrpc.Options{
		Logger:       log.WithOptions(redactSessionIDs),
		SendQueue:    s.cfg.SendQueue,
		CallTimeout:  s.cfg.ToolMaxTimeout,
		PingInterval: s.cfg.PingInterval,
		RateLimit:    s.cfg.RateLimit,
		RateBurst:    s.cfg.RateBurst,
		// The peer logs the panic with its stack and closes the socket with 1011.
		OnPanic: func(where string, v any) { s.countPanic("socket_"+where, v) },
	})
	cfg := s.cfg
	c.mcp = pagemcp.New(c.peer, pagemcp.Options{
		ClientInfo:       wire.Implementation{Name: "byomcp", Version: Version},
		HandshakeTimeout: cfg.HandshakeTimeout,
		RelistDebounce:   cfg.RelistDebounce,
		ToolTimeout:      cfg.ToolTimeout,
		ToolMaxTimeout:   cfg.ToolMaxTimeout,
		MaxOutput:        cfg.Limits.MaxOutput,
		MaxTools:         cfg.Limits.MaxTools,
		Schemas:          s.schemas,
		Defs:             s.defs,
		Confirm: func(name string) bool {
			return slices.Contains(cfg.ConfirmTools, name) || s.site(origin).Confirms(name)
		},
		ServerTools: func() []string { return s.webServerTools(origin) },
		OnRejected:  c.sendRejected,
		OnPanic:     s.countPanic,
		Logger:      log,
	})
	return c
}

// sendRejected tells the page that one of its tools cannot be used. The event is not part
// of the session's log: it has no seq, and no sessionId before agent/session. It runs in
// the goroutine that lists the page's tools and waits for room in the send queue
// (NotifyWhenRoom): a listing's rejections (at most pagemcp.MaxRejectedReports+1) never
// fill it, even beside a resume's replay, so a page that reads is never dropped for them.
func (c *pageConn) sendRejected(name, reason string) {
	ev := &wire.ToolRejectedEvent{EventHeader: wire.EventHeader{Type: wire.EventToolRejected}, Name: name, Reason: reason}
	if ls := c.boundSession(); ls != nil {
		ev.SessionID = ls.id
	} else if px := c.boundProxy(); px != nil {
		ev.SessionID = px.id
	}
	if err := c.peer.NotifyWhenRoom(context.Background(), wire.MethodAgentEvent, ev); err != nil {
		c.log.Debug("sending event", zap.Error(err))
	}
}

// serveConn runs one page connection until it ends.
func (s *Server) serveConn(ctx context.Context, mc wsrpc.MessageConn, origin, client string, served func()) {
	c := s.newPageConn(mc, origin, client)
	log := c.log
	s.registerHandlers(c)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.peer.CloseWithStatus(1001, "server shutting down")
		served()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.sockets.Inc()

	log.Debug("page connected", zap.String("origin", origin))
	handshook := make(chan struct{})
	go func() {
		defer close(handshook)
		defer s.recoverSocket(c, "handshake")
		if err := c.mcp.Handshake(context.WithoutCancel(ctx)); err != nil {
			if errors.Is(err, wsrpc.ErrClosed) {
				// the page went away before the handshake ended (a visitor who left at once):
				// a disconnect like any other, no warning
				log.Debug("page handshake ended by the socket's close", zap.Error(err))
				return
			}
			log.Warn("page handshake failed", zap.Error(err))
			c.peer.CloseWithStatus(1002, truncateReason(err.Error()))
		}
	}()
	// The socket is read until it closes, by goroutines that exist only while a message is
	// read (wsrpc.Peer.Run); the handshake's calls then fail at once.
	c.peer.Run(func(err error) {
		defer served()
		<-handshook
		switch {
		case errors.Is(err, wsrpc.ErrSlowPeer):
			s.metrics.dropped.Inc()
		case errors.Is(err, wsrpc.ErrRateLimited):
			s.metrics.refused.WithLabelValues("rate_limit").Inc()
		case errors.Is(err, wsrpc.ErrMessageTooBig):
			s.metrics.refused.WithLabelValues("too_big").Inc()
		case errors.Is(err, wsrpc.ErrMessageTimeout):
			s.metrics.refused.WithLabelValues("message_timeout").Inc()
		case errors.Is(err, wsrpc.ErrBinaryFrame), errors.Is(err, wsrpc.ErrInvalidUTF8):
			s.metrics.refused.WithLabelValues("protocol").Inc()
		}
		s.hub.detach(c)
		log.Debug("page disconnected", zap.Error(err))
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.metrics.sockets.Dec()
	})
}

// registerHandlers registers the page's requests. agent/session, agent/chat and
// agent/cancel take effect in the order the page sent them (ordered): each starts once the
// one before it has settled (an agent/session or agent/cancel when it is handled, an
// agent/chat when its turn has started or was refused), so an agent/chat pipelined right
// after an agent/session runs in the session that agent/session opened, and an
// agent/cancel sent after an agent/chat finds its turn. Their handlers still run in
// goroutines of their own, so a running turn never blocks the socket's reading.
func (s *Server) registerHandlers(c *pageConn) {
	p := c.peer
	p.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.HandleStart(wire.MethodAgentSession, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params wire.SessionParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		if c.turnRunningElsewhere(params.SessionID) {
			return nil, wire.ErrSwitchDuringTurn
		}
		if params.SessionID == "" && !s.budget.NewSession(c.client) {
			s.metrics.refused.WithLabelValues("sessions").Inc()
			c.log.Info("refused a new session: too many from this client", zap.String("client", c.client))
			return nil, wire.ErrTooManySessions
		}
		return s.hub.openSession(ctx, c, params)
	}))
	p.HandleStart(wire.MethodAgentChat, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params wire.ChatParams
		if err := decodeRequiredParams(req.Params, &params); err != nil {
			return nil, err
		}
		if px := c.boundProxy(); px != nil {
			return s.hub.proxyChat(ctx, c, px, params)
		}
		return s.hub.chat(ctx, c, params)
	}))
	p.HandleStart(wire.MethodAgentCancel, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params wire.CancelParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		if px := c.boundProxy(); px != nil {
			return s.hub.proxyCancel(ctx, px, params)
		}
		return s.hub.cancel(c, params)
	}))
	p.Handle(wire.MethodAgentAppCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params wire.AppCallParams
		if err := decodeRequiredParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.appCall(ctx, c, params)
	})
}

// settleKey is the context key of an ordered request's settle function.
type settleKey struct{}

// ordered wraps h for HandleStart: its start (in the read goroutine, in arrival order) takes
// the place of the page's last ordered request, and the handler waits until that one has
// settled. A request settles when its answer has been queued (and what its handler sends
// after it, see wsrpc.ReplyThen), when it fails, or earlier when it calls settleRequest. Settling
// when the handler returns was not enough: the next request's answer could be queued before
// this one's, and a page that pipelines two agent/session requests was then bound to the
// session of the answer it got first.
func (c *pageConn) ordered(h wsrpc.Handler) func(*wsrpc.Request) wsrpc.Handler {
	return func(*wsrpc.Request) wsrpc.Handler {
		prev := c.lastOp
		mine := make(chan struct{})
		c.lastOp = mine
		settle := sync.OnceFunc(func() { close(mine) }) // one closer: whichever call is first
		return func(ctx context.Context, req *wsrpc.Request) (any, error) {
			answered := false // settled once the answer is queued, else on the way out
			defer func() {
				if !answered {
					settle()
				}
			}()
			select {
			case <-prev:
			case <-ctx.Done():
				return nil, wire.ErrCancelledEarly
			}
			res, err := h(context.WithValue(ctx, settleKey{}, settle), req)
			if err != nil {
				return nil, err
			}
			answered = true
			if r, ok := res.(*wsrpc.Reply); ok {
				after := r.After
				r.After = func() {
					defer settle()
					if after != nil {
						after()
					}
				}
				return r, nil
			}
			return wsrpc.ReplyThen(res, settle), nil
		}
	}
}

// settleRequest lets the next ordered request of the socket start (see ordered).
func settleRequest(ctx context.Context) {
	if f, ok := ctx.Value(settleKey{}).(func()); ok {
		f()
	}
}

// decodeParams decodes a request's params into v; absent or null params leave v as it is
// (agent/session and agent/cancel, whose params are all optional). Params that do not fit v
// are -32602 invalid params.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return wsrpc.NewError(wsrpc.CodeInvalidParams, "invalid params: "+jsonerr.Describe("", err))
	}
	return nil
}

// decodeRequiredParams is decodeParams for a method whose request must have params
// (agent/chat: docs/protocol.schema.json requires them, and their text): absent or null
// params are -32602 invalid params too.
func decodeRequiredParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return wsrpc.NewError(wsrpc.CodeInvalidParams, "invalid params: params are required")
	}
	return decodeParams(raw, v)
}

// turnRunningElsewhere reports whether a turn this socket started runs in its session and
// the page asks for another one: its events would stop reaching the page, whose agent/chat
// would then be answered without the turn_end promised before it.
func (c *pageConn) turnRunningElsewhere(sessionID string) bool {
	ls := c.boundSession()
	if ls == nil || sessionID == ls.id {
		return false
	}
	ls.mu.Lock()
	rt := ls.turn
	ls.mu.Unlock()
	if rt == nil || rt.caller != c {
		return false
	}
	select {
	case <-rt.done:
		return false
	default:
		return true
	}
}

// bind and boundSession track the session a socket serves.
func (c *pageConn) bind(ls *liveSession) {
	c.mu.Lock()
	c.session = ls
	c.mu.Unlock()
}

// markGone records that the socket ended (detach).
func (c *pageConn) markGone() {
	c.mu.Lock()
	c.gone = true
	c.mu.Unlock()
}

func (c *pageConn) boundSession() *liveSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// sendBack closes the socket with wire.CloseResume: its session is served elsewhere now (or
// must be read again), and its page reconnects and resumes by lastSeq. A close frame, not a
// dropped connection, so that the page knows this is no network failure.
func (c *pageConn) sendBack(why string) {
	c.peer.CloseWithStatus(wire.CloseResume, truncateReason(why))
}

// recoverSocket is deferred by the goroutines a page socket starts (handshake, re-list): a
// panic is reported and ends that socket with 1011; the process and the other sockets go on.
func (s *Server) recoverSocket(c *pageConn, where string) {
	if v := recover(); v != nil {
		s.reportPanic(c.log, where, v)
		c.peer.CloseWithStatus(1011, "internal error")
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

// sendEvent sends stored event data as agent/event of session id (socket).
func (c *pageConn) sendEvent(data json.RawMessage, id string) error {
	return notifyEvent(c.peer, data, id)
}

// notify sends one notification to the page (socket).
func (c *pageConn) notify(method string, params any) error {
	return c.peer.Notify(context.Background(), method, params)
}

// closeWith closes the socket with code 1000 and reason (socket).
func (c *pageConn) closeWith(reason string) {
	c.peer.CloseWithStatus(1000, reason)
}

// alive tells, when another socket asks for a session live on c, whether c still
// serves a live tab: then the newcomer is a duplicated tab. A socket that is closing, whose
// page said it navigates away, or that does not answer a ping within wait (probeWait at most: a phone that
// slept, a network that changed, before the server noticed) is not; it is closed, so the
// session moves to the new socket instead of forking.
func (c *pageConn) alive(ctx context.Context, wait time.Duration) bool {
	if c.mcp.Leaving() {
		return false
	}
	select {
	case <-c.peer.Done():
		return false
	default:
	}
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := c.peer.Call(pctx, wire.MethodPing, struct{}{}, nil)
	var rpcErr *wsrpc.Error
	if err == nil || errors.As(err, &rpcErr) || ctx.Err() != nil {
		return true // any answer is a live tab; a gone requester decides nothing
	}
	c.log.Info("a session's socket did not answer a ping; closing it for the session's new socket", zap.Error(err))
	c.peer.Close(errors.New("replaced by a new socket of its session"))
	return false
}
