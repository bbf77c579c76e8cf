// Package agentsvc is the application: the WebSocket endpoint where pages connect, the agent
// as MCP client of each page, sessions, and the tool-calling loop over a language model.
package agentsvc

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/wsrpc"
)

// Version is the agent's version, sent as clientInfo.
const Version = "0.1.0"

// Config configures a Server. Zero values take the DESIGN.md defaults.
type Config struct {
	// OwnOrigins are the server's own origins ("http://127.0.0.1:8080"): where it serves its
	// pages, from its listen address (serve gives both http://127.0.0.1:PORT and
	// http://localhost:PORT for a loopback listener) or its public URL behind a proxy. They
	// are always allowed, and the Host header of a socket or check request must name one of
	// their hosts or of AllowedOrigins' (DNS rebinding). Empty: the address the request's
	// connection came in on (never its Host header), plus localhost for a loopback address.
	OwnOrigins []string
	// AllowedOrigins are exact origins ("https://shop.example") allowed besides OwnOrigins; a
	// port may be "*" ("http://localhost:*"). Empty: http://localhost:*, http://127.0.0.1:*
	// and http://[::1]:* (local development); given, they replace those three.
	AllowedOrigins []string
	// OnPanic, if set, is called with where and the value of every panic the server recovers
	// (after it was logged with its stack and counted in byomcp_panics_total). Tests make it
	// fail the test: a recovered panic is still a bug.
	OnPanic func(where string, v any)
	Store   store.Store // required
	Model   llm.Model   // required (the offline planner when no model is configured)
	// ServerTools are server-side MCP tools offered to web conversations (nil = none).
	ServerTools mcpservers.ServerTools
	Logger      *zap.Logger
	Limits      loop.Limits
	// ConfirmTools are page tool names that always need the user's confirmation.
	ConfirmTools []string
	// SystemPrompt overrides the default system prompt.
	SystemPrompt string
	// Sites, if set, gives the site of a page Origin (agentsvc/sites; nil: none): its
	// origins are allowed, and its instructions, model, guards, token budget, confirm
	// policy and server MCP servers apply to its pages' turns.
	Sites func(origin string) *sites.Site
	// OnEvent, if set, is given every event of a session as it is logged (the operator
	// console's live view). It is called under the session's lock and must not block.
	OnEvent func(origin, sessionID string, data json.RawMessage)

	ToolTimeout      time.Duration // per tool call, extended by progress; default 30 s
	ToolMaxTimeout   time.Duration // hard maximum per tool call; default 10 min
	HandshakeTimeout time.Duration // initialize and tools/list; default 10 s
	RelistDebounce   time.Duration // after tools/list_changed; default 100 ms
	// ReconnectWait is how long a running turn waits for its page to come back (for example
	// after a tool navigated); default 30 s.
	ReconnectWait time.Duration
	MaxChatText   int // bytes of one agent/chat text; default 32 KiB
	// ClaimTTL is how long a replica's claim on a live session lasts without renewal;
	// default 10 s.
	ClaimTTL time.Duration
	// OwnerID names this process as a session owner ("" = random). Give a stable one with a
	// local store so a restarted process takes its sessions back at once.
	OwnerID       string
	ShutdownGrace time.Duration // how long running turns may go on at shutdown; default 10 s
	// SessionTTL deletes sessions idle for longer (checked every SessionTTL/10, at most
	// hourly); default 7 days, negative = keep forever.
	SessionTTL time.Duration

	// Budgets per client (the TCP remote address: behind a proxy every visitor shares the
	// proxy's; a loopback address is no client of its own, so only the totals bound it) and
	// in all. Over them an agent/chat gets CodeBusy and an agent/session that
	// creates a session gets CodeTooManySessions.
	ClientTurns        int     // turns running at once per client; default 32, negative: no limit
	MaxTurns           int     // turns running at once in all; default 1024, negative: no limit
	ClientSessionRate  float64 // new sessions per second per client; default 2, negative: no limit
	ClientSessionBurst int     // bucket of ClientSessionRate; default 120

	ReadLimit      int64         // bytes per frame; default 1 MiB
	MessageTimeout time.Duration // from a message's first frame to its last; default 30 s
	SendQueue      int           // messages queued per socket; default 256
	PingInterval   time.Duration // default 25 s
	WriteTimeout   time.Duration // default 10 s
	RateLimit      float64       // messages per second per socket; default 50
	RateBurst      int           // default 200
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ToolTimeout, 30*time.Second)
	def(&c.ToolMaxTimeout, 10*time.Minute)
	def(&c.HandshakeTimeout, 10*time.Second)
	def(&c.RelistDebounce, 100*time.Millisecond)
	def(&c.ReconnectWait, 30*time.Second)
	def(&c.ClaimTTL, 10*time.Second)
	def(&c.ShutdownGrace, 10*time.Second)
	if c.SessionTTL == 0 {
		c.SessionTTL = 7 * 24 * time.Hour
	}
	def(&c.PingInterval, 25*time.Second)
	def(&c.MessageTimeout, 30*time.Second)
	if c.ClientTurns == 0 {
		c.ClientTurns = 32
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = 1024
	}
	if c.ClientSessionRate == 0 {
		c.ClientSessionRate = 2
	}
	if c.ClientSessionBurst <= 0 {
		c.ClientSessionBurst = 120
	}
	def(&c.WriteTimeout, 10*time.Second)
	if c.MaxChatText <= 0 {
		c.MaxChatText = 32 << 10
	}
	if c.ReadLimit <= 0 {
		c.ReadLimit = 1 << 20
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 256
	}
	if c.RateLimit == 0 {
		c.RateLimit = 50
	}
	if c.RateBurst <= 0 {
		c.RateBurst = 200
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}

// Server serves the page socket at /v1/ws.
//
// Lock order, across the package: liveSession.resyncMu, then liveSession.mu, then
// pageConn.mu or Server.mu or hub.mu (never two of these three at once); budget.mu and
// pageConn.progMu are leaves. hub.liveSessions is how a hub-wide walk gets the sessions
// without holding hub.mu while it locks each one. No lock is held while calling the page
// (Peer.Call) or the store, except liveSession.resyncMu.
//
// Goroutines and their owners: one per socket (serve, registered in served before it
// starts, so Shutdown waits), its handshake, its re-list loop (pageConn.relistLoop), one per
// running turn (startTurn, counted in turns), one flusher per session while events are
// pending (liveSession.flushLoop), and two server loops (expireIdle, hub.renewClaims) that
// end when stopping is closed. Each recovers a panic (recoverSocket, recoverTurn, guard):
// logged with its stack, counted in byomcp_panics_total{where}, reported to Config.OnPanic;
// a socket then closes with 1011, a turn ends with stopReason error, a loop goes on.
type Server struct {
	cfg     Config
	log     *zap.Logger
	owner   string // this process's id as a session owner
	schemas *schemaCache
	hub     *hub
	metrics *metrics
	budget  *budget

	mu       sync.Mutex
	conns    map[*pageConn]struct{}
	closing  bool
	turns    sync.WaitGroup
	served   sync.WaitGroup // serveConn calls running, so Shutdown returns after the last
	stopping chan struct{}
}

// NewServer checks cfg and returns a Server.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("agentsvc: Config.Store is required")
	}
	if cfg.Model == nil {
		return nil, errors.New("agentsvc: Config.Model is required")
	}
	for _, o := range slices.Concat(cfg.OwnOrigins, cfg.AllowedOrigins) {
		if _, err := parseOriginPattern(o); err != nil {
			return nil, err
		}
	}
	for _, o := range cfg.OwnOrigins {
		if strings.HasSuffix(o, ":*") {
			return nil, errors.New("agentsvc: own origin " + o + " must have an exact port")
		}
	}
	cfg = cfg.withDefaults()
	if cfg.OwnerID == "" {
		cfg.OwnerID = "replica-" + randomID(8)
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		owner:    cfg.OwnerID,
		schemas:  newSchemaCache(4096),
		metrics:  newMetrics(),
		budget:   newBudget(cfg),
		conns:    map[*pageConn]struct{}{},
		stopping: make(chan struct{}),
	}
	s.hub = newHub(s)
	if cfg.SessionTTL > 0 {
		go s.expireIdle()
	}
	return s, nil
}

// ServeHTTP upgrades /v1/ws requests from allowed origins and serves the socket in a goroutine
// of its own until it closes. Refused or missing origins get 403 before the upgrade.
//
// It returns once the socket is open, unlike most WebSocket handlers: while a handler runs,
// net/http keeps its connection, its 4 KiB write buffer, the request and its headers, about
// 17 KiB per idle socket (bench/PERFORMANCE.md). Shutdown tracks and closes the sockets itself.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if !s.hostAllowed(r) {
		s.log.Warn("refused host (DNS rebinding?)", zap.String("host", r.Host), zap.String("origin", origin), zap.String("remote", r.RemoteAddr))
		s.metrics.refused.WithLabelValues("host").Inc()
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	if !s.originAllowed(origin, r) {
		s.log.Warn("refused origin", zap.String("origin", origin), zap.String("remote", r.RemoteAddr))
		s.metrics.refused.WithLabelValues("origin").Inc()
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	mc, err := wsrpc.Accept(w, r, wsrpc.AcceptOptions{
		Subprotocols:   []string{"mcp"},
		ReadBufferSize: socketReadBuffer,
		WS:             wsrpc.WSOptions{ReadLimit: s.cfg.ReadLimit, WriteTimeout: s.cfg.WriteTimeout, MessageTimeout: s.cfg.MessageTimeout},
	})
	if err != nil {
		s.log.Debug("upgrade failed", zap.Error(err))
		return
	}
	s.serveClient(context.WithoutCancel(r.Context()), mc, origin, clientAddr(r))
}

// clientAddr is the host of the request's TCP remote address, the key of the per-client
// budgets (behind a proxy, the proxy's). A loopback address gives "": what connects from this
// machine is a local reverse proxy (every visitor behind it would share one budget) or the
// operator's own tools, so only the total budgets apply to it.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return ""
	}
	return host
}

// serve serves a page connection in a goroutine of its own, which Shutdown waits for. The
// connection has no client address: the per-client budgets do not apply to it (the total
// ones do).
func (s *Server) serve(ctx context.Context, mc wsrpc.MessageConn, origin string) {
	s.serveClient(ctx, mc, origin, "")
}

// serveClient is serve for a connection from client (a remote address's host).
func (s *Server) serveClient(ctx context.Context, mc wsrpc.MessageConn, origin, client string) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		if sc, ok := mc.(wsrpc.StatusCloser); ok {
			_ = sc.CloseWithStatus(1001, "server shutting down")
		}
		_ = mc.Close()
		return
	}
	s.served.Add(1) // under s.mu while not closing: before Shutdown's Wait
	s.mu.Unlock()
	go func() {
		defer s.served.Done()
		s.serveConn(ctx, mc, origin, client)
	}()
}

// socketReadBuffer is the read buffer of a page socket. Pages send small messages; a bigger
// one is read straight into the message's own buffer, so a small one costs no round trips.
const socketReadBuffer = 512

// serveConn runs one page connection until it ends.
func (s *Server) serveConn(ctx context.Context, mc wsrpc.MessageConn, origin, client string) {
	id := randomID(6)
	log := s.log.With(zap.String("conn", id))
	c := newPageConn(s, id, origin, log)
	c.client = client
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
	s.registerHandlers(c)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.peer.CloseWithStatus(1001, "server shutting down")
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.sockets.Inc()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.metrics.sockets.Dec()
	}()

	log.Debug("page connected", zap.String("origin", origin))
	handshook := make(chan struct{})
	go func() {
		defer close(handshook)
		defer s.recoverSocket(c, "handshake")
		if err := c.handshake(context.WithoutCancel(ctx)); err != nil {
			log.Warn("page handshake failed", zap.Error(err))
			if !errors.Is(err, wsrpc.ErrClosed) {
				c.peer.CloseWithStatus(1002, truncateReason(err.Error()))
			}
		}
	}()
	// This goroutine reads the socket until it closes; the handshake's calls then fail at once.
	err := c.peer.Serve()
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
	case errors.Is(err, wsrpc.ErrBinaryFrame):
		s.metrics.refused.WithLabelValues("protocol").Inc()
	}
	s.hub.detach(c)
	log.Debug("page disconnected", zap.Error(err))
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
	p.Handle(MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.HandleStart(MethodAgentSession, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params SessionParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		if params.SessionID == "" && !s.budget.newSession(c.client) {
			s.metrics.refused.WithLabelValues("sessions").Inc()
			c.log.Info("refused a new session: too many from this client", zap.String("client", c.client))
			return nil, errTooManySessions
		}
		return s.hub.openSession(ctx, c, params)
	}))
	p.HandleStart(MethodAgentChat, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params ChatParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.hub.chat(ctx, c, params)
	}))
	p.HandleStart(MethodAgentCancel, c.ordered(func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params CancelParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.hub.cancel(c, params)
	}))
	p.HandleNotification(MethodToolsListChanged, func(context.Context, *wsrpc.Request) { c.onListChanged() })
	p.HandleNotification(MethodProgress, func(_ context.Context, req *wsrpc.Request) {
		var params ProgressParams
		if json.Unmarshal(req.Params, &params) == nil {
			c.onProgress(params)
		}
	})
}

// settleKey is the context key of an ordered request's settle function.
type settleKey struct{}

// ordered wraps h for HandleStart: its start (in the read goroutine, in arrival order) takes
// the place of the page's last ordered request, and the handler waits until that one has
// settled. A request settles when its handler returns, or earlier when it calls settled.
func (c *pageConn) ordered(h wsrpc.Handler) func(*wsrpc.Request) wsrpc.Handler {
	return func(*wsrpc.Request) wsrpc.Handler {
		prev := c.lastOp
		mine := make(chan struct{})
		c.lastOp = mine
		settle := sync.OnceFunc(func() { close(mine) }) // one closer: whichever call is first
		return func(ctx context.Context, req *wsrpc.Request) (any, error) {
			defer settle()
			select {
			case <-prev:
			case <-ctx.Done():
				return nil, errCancelledEarly
			}
			return h(context.WithValue(ctx, settleKey{}, settle), req)
		}
	}
}

// settled lets the next ordered request of the socket start (see ordered).
func settled(ctx context.Context) {
	if f, ok := ctx.Value(settleKey{}).(func()); ok {
		f()
	}
}

func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return wsrpc.NewError(wsrpc.CodeInvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

// Shutdown lets running turns finish within the grace period (then cancels them), and
// closes every socket with 1001. New sockets are refused meanwhile.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.stopping)
	}
	s.mu.Unlock()
	grace, cancel := context.WithTimeout(ctx, s.cfg.ShutdownGrace)
	defer cancel()
	done := make(chan struct{})
	go func() { s.turns.Wait(); close(done) }()
	select {
	case <-done:
	case <-grace.Done():
		s.hub.cancelAll("server shutting down")
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	s.mu.Lock()
	conns := make([]*pageConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.peer.CloseWithStatus(1001, "server shutting down")
	}
	served := make(chan struct{})
	go func() { s.served.Wait(); close(served) }()
	select {
	case <-served: // every socket detached from its session and logged its end
	case <-ctx.Done():
	}
	return ctx.Err()
}

// expireIdle deletes idle sessions from the store now and then.
func (s *Server) expireIdle() {
	every := min(s.cfg.SessionTTL/10, time.Hour)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s.guard("expire_idle", s.expireOnce)
		select {
		case <-s.stopping:
			return
		case <-t.C:
		}
	}
}

// expireOnce is one round of expireIdle.
func (s *Server) expireOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.hub.touchLive(ctx) // a tab that stays open keeps its conversation
	n, err := s.cfg.Store.ExpireIdle(ctx, time.Now().Add(-s.cfg.SessionTTL))
	switch {
	case err != nil:
		s.log.Warn("expiring idle sessions", zap.Error(err))
	case n > 0:
		s.log.Info("expired idle sessions", zap.Int("sessions", n))
	}
}

// countPanic counts a recovered panic (already logged with its stack) and reports it to
// Config.OnPanic.
func (s *Server) countPanic(where string, v any) {
	s.metrics.panics.WithLabelValues(where).Inc()
	if s.cfg.OnPanic != nil {
		s.cfg.OnPanic(where, v)
	}
}

// reportPanic logs a recovered panic with its stack at Error level and counts it.
func (s *Server) reportPanic(log *zap.Logger, where string, v any) {
	log.Error("recovered a panic", zap.String("where", where), zap.Any("panic", v), zap.Stack("stack"))
	s.countPanic(where, v)
}

// recoverSocket is deferred by the goroutines a page socket starts (handshake, re-list): a
// panic is reported and ends that socket with 1011; the process and the other sockets go on.
func (s *Server) recoverSocket(c *pageConn, where string) {
	if v := recover(); v != nil {
		s.reportPanic(c.log, where, v)
		c.peer.CloseWithStatus(1011, "internal error")
	}
}

// guard runs fn, reporting a panic instead of letting it end the process (server loops run
// each round through it, so the next round still comes).
func (s *Server) guard(where string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			s.reportPanic(s.log, where, v)
		}
	}()
	fn()
}

// loop runs a server loop (fn returns when stopping is closed), starting it again a second
// after a panic.
func (s *Server) loop(where string, fn func()) {
	for {
		s.guard(where, fn)
		select {
		case <-s.stopping:
			return
		case <-time.After(time.Second):
		}
	}
}

// recoverTurn is deferred by a turn's goroutine: after a panic outside RunTurn (which
// contains its own), the turn still ends: with stopReason error, its turn_end in the log if
// emitting works, its agent/chat answered, and the session free for the next turn.
func (h *hub) recoverTurn(ls *liveSession, rt *runningTurn) {
	v := recover()
	if v == nil {
		return
	}
	h.srv.reportPanic(ls.log, "turn", v)
	select {
	case <-rt.done: // ended and answered; the panic came after
		return
	default:
	}
	const text = "The agent failed while answering (an internal error). Please ask again."
	h.srv.guard("turn", func() {
		none := ""
		ls.emit(&TurnEndEvent{EventHeader: EventHeader{Type: EventTurnEnd, TurnID: rt.id}, StopReason: StopError, Text: text}, nil, &none)
	})
	h.srv.metrics.turns.WithLabelValues(StopError).Inc()
	rt.result = ChatResult{TurnID: rt.id, Text: text, StopReason: StopError}
	ls.mu.Lock()
	if ls.turn == rt {
		ls.turn = nil
	}
	idle := ls.conn == nil
	ls.mu.Unlock()
	close(rt.done) // only this goroutine closes it, and it had not
	if idle {
		h.srv.guard("turn", func() { h.evict(ls) })
	}
}

// flushContained runs a session's flusher (emit starts it). After a panic, what it held is
// handled as a write that failed for good (the turn ends with error, the session reads the
// store again before its next turn), and waitFlushed's waiters are released.
func (ls *liveSession) flushContained() {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		ls.hub.srv.reportPanic(ls.log, "flusher", v)
		ls.mu.Lock()
		defer ls.mu.Unlock()
		ls.failWritesLocked(fmt.Errorf("agent: the session's flusher failed: %v", v), 0)
		ls.flushing = false
		close(ls.flushed) // the loop closes it only on its way out, which the panic skipped
	}()
	ls.flushLoop()
}

// ConnCount reports the open page sockets.
func (s *Server) ConnCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// ownOrigins returns the server's own origins: Config.OwnOrigins, else the address the
// request's connection came in on (never its Host header), with localhost for a loopback one.
func (s *Server) ownOrigins(r *http.Request) []string {
	if len(s.cfg.OwnOrigins) > 0 || r == nil {
		return s.cfg.OwnOrigins
	}
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return nil
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return OriginsOf(scheme, addr)
}

// OriginsOf returns the origins a listener at addr is reached by: scheme://IP:PORT, plus
// scheme://localhost:PORT when the IP is a loopback one. A wildcard address (0.0.0.0, ::)
// gives localhost and 127.0.0.1 only: the names it is reached by from outside are not known
// (give them as a public URL or allowed origins).
func OriginsOf(scheme string, addr net.Addr) []string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return []string{scheme + "://" + net.JoinHostPort(host, port)}
	}
	ip = ip.Unmap()
	if ip.IsUnspecified() {
		return []string{scheme + "://localhost:" + port, scheme + "://127.0.0.1:" + port}
	}
	out := []string{scheme + "://" + net.JoinHostPort(ip.String(), port)}
	if ip.IsLoopback() {
		out = append(out, scheme+"://localhost:"+port)
	}
	return out
}

// allowedPatterns is the allow-list: the server's own origins, and AllowedOrigins or, when
// none are configured, the local development origins.
func (s *Server) allowedPatterns(r *http.Request) []string {
	extra := s.cfg.AllowedOrigins
	if len(extra) == 0 {
		extra = devOrigins
	}
	return slices.Concat(s.ownOrigins(r), extra)
}

// devOrigins are allowed when no AllowedOrigins are configured.
var devOrigins = []string{"http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"}

// originAllowed applies the allow-list to an Origin header.
func (s *Server) originAllowed(origin string, r *http.Request) bool {
	if origin == "" || origin == "null" {
		return false
	}
	if s.site(origin) != nil {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	for _, p := range s.allowedPatterns(r) {
		pat, err := parseOriginPattern(p)
		if err == nil && pat.match(u) {
			return true
		}
	}
	return false
}

// hostAllowed checks the Host header against DNS rebinding: a page of another site whose
// name was made to resolve to this server sends its own name as Host. Allowed: an IP
// literal (no name to rebind), or a host name of the server's own origins or of an allowed
// origin. The port is not checked (a proxy may change it).
func (s *Server) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "."))
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	for _, p := range s.allowedPatterns(r) {
		pat, err := parseOriginPattern(p)
		if err == nil && strings.Trim(pat.host, "[]") == host {
			return true
		}
	}
	return false
}

// OriginCheck is the result of GET /v1/origin-check.
type OriginCheck struct {
	Allowed bool   `json:"allowed"`
	Origin  string `json:"origin"`
	Message string `json:"message"`
}

// OriginCheckHandler serves GET /v1/origin-check: whether the calling page's Origin may open
// the socket, readable from any site (Access-Control-Allow-Origin: *), so that a site owner
// (or the widget) can tell why it cannot connect. It tells nothing the socket's 403 does not.
func (s *Server) OriginCheckHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		res := OriginCheck{Origin: origin}
		switch {
		case origin == "" || origin == "null":
			res.Message = "The request has no Origin: open the check from the page's script (fetch) so the browser sends it."
		case !s.hostAllowed(r):
			res.Message = "This agent does not answer to the host name " + r.Host + ": give it as --public-url (or in --allowed-origins) when the agent is reached by that name."
		case s.originAllowed(origin, r):
			res.Allowed = true
			res.Message = "This site's origin is allowed to connect to the agent."
		default:
			res.Message = "This site's origin is not allowed by the agent: add it with --allowed-origins (env BYOMCP_ALLOWED_ORIGINS), e.g. --allowed-origins " + exampleOrigin(origin) + "."
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_ = json.NewEncoder(w).Encode(res)
	})
}

// exampleOrigin is origin as an --allowed-origins value, or a placeholder when it is not
// one (it is echoed into a sentence: keep it short and plain).
func exampleOrigin(origin string) string {
	if _, err := parseOriginPattern(origin); err != nil || len(origin) > 200 {
		return "https://your-site.example"
	}
	return origin
}

type originPattern struct {
	scheme, host, port string // port "*" matches any (and none)
}

func parseOriginPattern(p string) (originPattern, error) {
	if p == "*" {
		return originPattern{}, errors.New(`agentsvc: allowed origin "*" is not supported: list exact origins`)
	}
	scheme, rest, ok := strings.Cut(p, "://")
	if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#") {
		return originPattern{}, errors.New("agentsvc: allowed origin " + p + " must look like https://host[:port]")
	}
	host, port := rest, ""
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.HasSuffix(rest, "]") {
		host, port = rest[:i], rest[i+1:]
	}
	return originPattern{scheme: scheme, host: strings.ToLower(host), port: port}, nil
}

func (p originPattern) match(u *url.URL) bool {
	if u.Scheme != p.scheme {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if host != p.host {
		return false
	}
	port := u.Port()
	if p.port == "*" {
		return true
	}
	def := map[string]string{"http": "80", "https": "443"}[p.scheme]
	norm := func(s string) string {
		if s == "" {
			return def
		}
		return s
	}
	return norm(port) == norm(p.port)
}

func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func truncateReason(s string) string {
	if len(s) > 120 { // a close frame's reason must fit in 123 bytes
		return s[:120]
	}
	return s
}

// schemaCache compiles each distinct schema once; pages with the same tools share them.
type schemaCache struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte]schemaEntry
}

type schemaEntry struct {
	s   *tools.Schema
	err error
}

func newSchemaCache(max int) *schemaCache {
	return &schemaCache{max: max, m: map[[32]byte]schemaEntry{}}
}

func (c *schemaCache) compile(raw json.RawMessage) (*tools.Schema, error) {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return e.s, e.err
	}
	s, err := tools.CompileSchema(raw)
	c.mu.Lock()
	if len(c.m) >= c.max {
		for k := range c.m { // drop an arbitrary entry: simple and bounded
			delete(c.m, k)
			break
		}
	}
	c.m[key] = schemaEntry{s, err}
	c.mu.Unlock()
	return s, err
}
