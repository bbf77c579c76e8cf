// Package agentsvc is the application: the WebSocket endpoint where pages connect, the agent
// as MCP client of each page, sessions, and the tool-calling loop over a language model.
package agentsvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/memrelease"
	"github.com/byomcp/byomcp/agentsvc/internal/ratelimit"
	"github.com/byomcp/byomcp/agentsvc/internal/recent"
	"github.com/byomcp/byomcp/agentsvc/internal/turnbudget"
	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/wsrpc"
)

// Version is the agent's version, sent as clientInfo.
const Version = "0.1.0"

// Server serves the page socket at /v1/ws.
//
// Lock order, across the package: liveSession.mu, then pageConn.mu or Server.mu or hub.mu
// (never two of these three at once); the budget's lock and the locks inside pagemcp.Client and
// pagemcp.SchemaCache are leaves. hub.liveSessions is how a hub-wide walk gets the sessions
// without holding hub.mu while it locks each one. No lock is held while calling the page
// (Peer.Call) or the store: what waits for the store is a state of the session
// (agentsvc/session: Releasing, Claiming, Reading) that other requests wait out, not a lock;
// the tests check it (lockcheck.go). Each type that holds a lock says its place in this order.
//
// Goroutines and their owners: one per socket (serve, registered in served before it
// starts, so Shutdown waits), its handshake, its re-list loop (pagemcp.Client's), one per
// running turn (startTurn, counted in turns), one flusher per session while events are
// pending (liveSession.flushLoop), and two server loops (expireIdle, hub.renewClaims) that
// end when stopping is closed. Each recovers a panic (recoverSocket, recoverTurn, guard):
// logged with its stack, counted in byomcp_panics_total{where}, reported to Config.OnPanic;
// a socket then closes with 1011, a turn ends with stopReason error, a loop goes on.
type Server struct {
	*guardian // recovers, logs and counts the panics of its goroutines

	cfg   Config
	store store.Store // cfg.Store, through the lock check when it is on (lockcheck.go)
	log   *zap.Logger
	owner string // this process's id as a session owner
	relay *relay // the other replicas, when the store has a bus (nil: one process)
	// renewing is closed at the end of Shutdown, once no turn runs: claims are renewed until
	// then (the replicas that now have its tabs must not take its sessions mid-turn).
	renewing  chan struct{}
	stopRenew func()
	schemas   *pagemcp.SchemaCache
	defs      *pagemcp.DefCache // the pages' tool definitions, interned: one copy per page, not per tab
	hub       *hub
	deleted   recent.IDs // conversations an operator deleted lately (Forget)
	metrics   *metrics
	budget    *turnbudget.Budget
	idleMem   *memrelease.Releaser // after a burst of turns, the runtime's unused memory goes back to the OS
	// takeOverHook, when set (tests, before any socket), runs in a proxy's take-over once
	// the session is resumed here and before it is bound to the socket.
	takeOverHook func(*proxy)
	// evictHook, when set (tests, before any socket), runs once evict has let a session go and
	// released ls.mu: a request that takes it back from then on must find it its own.
	evictHook func(*liveSession)
	// claimWaitHook, when set (tests, before any socket), runs when a load of a session waits
	// for the release of its claim by a copy let go here (hub.claimToLoad).
	claimWaitHook func(id string)

	mu       mutex
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
	if cfg.PongWait <= cfg.PingInterval {
		// The pongs would come too late to extend the read deadline: every socket would close.
		return nil, fmt.Errorf("agentsvc: Config.PongWait (%v) must be longer than PingInterval (%v)", cfg.PongWait, cfg.PingInterval)
	}
	if cfg.OwnerID == "" {
		cfg.OwnerID = "replica-" + randomID(8)
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		owner:    cfg.OwnerID,
		schemas:  pagemcp.NewSchemaCache(4096),
		defs:     pagemcp.NewDefCache(4096),
		metrics:  newMetrics(),
		budget:   turnbudget.New(cfg.ClientTurns, cfg.MaxTurns, cfg.ClientSessionRate, cfg.ClientSessionBurst),
		idleMem:  memrelease.New(cfg.IdleRelease),
		conns:    map[*pageConn]struct{}{},
		stopping: make(chan struct{}),
		renewing: make(chan struct{}),
	}
	s.guardian = &guardian{log: s.log, panics: s.metrics.panics, onPanic: cfg.OnPanic}
	s.store = cfg.Store
	if lockCheck.Load() {
		s.store = checkedStore{cfg.Store}
	}
	s.stopRenew = sync.OnceFunc(func() { close(s.renewing) })
	rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	r, err := newRelay(rctx, s)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("agentsvc: joining the other replicas on the store's bus: %w", err)
	}
	s.relay = r
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
// net/http keeps its connection, its write buffer, the request and its headers for every
// open tab (measured in bench/PERFORMANCE.md). Shutdown tracks and closes the sockets itself.
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
		WS:             wsrpc.WSOptions{ReadLimit: s.cfg.ReadLimit, WriteTimeout: s.cfg.WriteTimeout, MessageTimeout: s.cfg.MessageTimeout, PongWait: s.cfg.PongWait},
	})
	if err != nil {
		s.log.Debug("upgrade failed", zap.Error(err))
		return
	}
	s.serveClient(context.WithoutCancel(r.Context()), mc, origin, ratelimit.Client(r))
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
	go s.serveConn(ctx, mc, origin, client, s.served.Done) // Done once the socket has ended
}

// socketReadBuffer is the read buffer of a page socket. Pages send small messages; a bigger
// one is read straight into the message's own buffer, so a small one costs no round trips.
const socketReadBuffer = 512

// Shutdown lets running turns finish within the grace period (then cancels them), and
// closes every socket with 1001. New sockets are refused meanwhile. With other replicas on the
// store's bus, the sockets are closed first: the tabs reconnect elsewhere and follow the turns
// that finish here from there (relay.go).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.stopping)
	}
	s.mu.Unlock()
	s.idleMem.Stop()
	closeConns := func() {
		s.mu.Lock()
		conns := make([]*pageConn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.peer.CloseWithStatus(1001, "server shutting down")
		}
	}
	if s.relay != nil {
		// Other replicas can serve the tabs while the turns finish here: the tabs reconnect
		// through the balancer at once, and their pages serve these turns from there.
		closeConns()
	}
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
	closeConns()
	s.stopRenew()
	s.relay.close()
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
	n, err := s.store.ExpireIdle(ctx, time.Now().Add(-s.cfg.SessionTTL))
	switch {
	case err != nil:
		s.log.Warn("expiring idle sessions", zap.Error(err))
	case n > 0:
		s.log.Info("expired idle sessions", zap.Int("sessions", n))
	}
}

// ConnCount reports the open page sockets.
func (s *Server) ConnCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
