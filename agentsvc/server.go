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
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/wsrpc"
)

// Version is the agent's version, sent as clientInfo.
const Version = "0.1.0"

// Config configures a Server. Zero values take the DESIGN.md defaults.
type Config struct {
	// AllowedOrigins are exact origins ("https://shop.example"); a port may be "*"
	// ("http://localhost:*"). Empty: the server's own origin and http://localhost:*,
	// http://127.0.0.1:*.
	AllowedOrigins []string
	Store          store.Store // required
	Model          llm.Model   // required (the offline planner when no model is configured)
	// ServerTools are server-side MCP tools offered to web conversations (nil = none).
	ServerTools ServerTools
	Logger      *zap.Logger
	Limits      Limits
	// ConfirmTools are page tool names that always need the user's confirmation.
	ConfirmTools []string
	// SystemPrompt overrides the default system prompt.
	SystemPrompt string

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

	ReadLimit    int64         // bytes per frame; default 1 MiB
	SendQueue    int           // messages queued per socket; default 256
	PingInterval time.Duration // default 25 s
	WriteTimeout time.Duration // default 10 s
	RateLimit    float64       // messages per second per socket; default 50
	RateBurst    int           // default 200
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
	c.Limits = c.Limits.withDefaults()
	return c
}

// Server serves the page socket at /v1/ws.
type Server struct {
	cfg     Config
	log     *zap.Logger
	owner   string // this process's id as a session owner
	schemas *schemaCache
	hub     *hub
	metrics *metrics

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
	for _, o := range cfg.AllowedOrigins {
		if _, err := parseOriginPattern(o); err != nil {
			return nil, err
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
		WS:             wsrpc.WSOptions{ReadLimit: s.cfg.ReadLimit, WriteTimeout: s.cfg.WriteTimeout},
	})
	if err != nil {
		s.log.Debug("upgrade failed", zap.Error(err))
		return
	}
	s.serve(context.WithoutCancel(r.Context()), mc, origin)
}

// serve serves a page connection in a goroutine of its own, which Shutdown waits for.
func (s *Server) serve(ctx context.Context, mc wsrpc.MessageConn, origin string) {
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
		s.serveConn(ctx, mc, origin)
	}()
}

// socketReadBuffer is the read buffer of a page socket. Pages send small messages; a bigger
// one is read straight into the message's own buffer, so a small one costs no round trips.
const socketReadBuffer = 512

// serveConn runs one page connection until it ends.
func (s *Server) serveConn(ctx context.Context, mc wsrpc.MessageConn, origin string) {
	id := randomID(6)
	log := s.log.With(zap.String("conn", id))
	c := newPageConn(s, id, origin, log)
	c.peer = wsrpc.NewPeer(mc, wsrpc.Options{
		Logger:       log.WithOptions(redactSessionIDs),
		SendQueue:    s.cfg.SendQueue,
		CallTimeout:  s.cfg.ToolMaxTimeout,
		PingInterval: s.cfg.PingInterval,
		RateLimit:    s.cfg.RateLimit,
		RateBurst:    s.cfg.RateBurst,
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
	case errors.Is(err, wsrpc.ErrBinaryFrame):
		s.metrics.refused.WithLabelValues("protocol").Inc()
	}
	s.hub.detach(c)
	log.Debug("page disconnected", zap.Error(err))
}

func (s *Server) registerHandlers(c *pageConn) {
	p := c.peer
	p.Handle(MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.Handle(MethodAgentSession, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params SessionParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.hub.openSession(ctx, c, params)
	})
	p.Handle(MethodAgentChat, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params ChatParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.hub.chat(ctx, c, params)
	})
	p.Handle(MethodAgentCancel, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var params CancelParams
		if err := decodeParams(req.Params, &params); err != nil {
			return nil, err
		}
		return s.hub.cancel(c, params)
	})
	p.HandleNotification(MethodToolsListChanged, func(context.Context, *wsrpc.Request) { c.onListChanged() })
	p.HandleNotification(MethodProgress, func(_ context.Context, req *wsrpc.Request) {
		var params ProgressParams
		if json.Unmarshal(req.Params, &params) == nil {
			c.onProgress(params)
		}
	})
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
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s.hub.touchLive(ctx) // a tab that stays open keeps its conversation
		n, err := s.cfg.Store.ExpireIdle(ctx, time.Now().Add(-s.cfg.SessionTTL))
		cancel()
		switch {
		case err != nil:
			s.log.Warn("expiring idle sessions", zap.Error(err))
		case n > 0:
			s.log.Info("expired idle sessions", zap.Int("sessions", n))
		}
		select {
		case <-s.stopping:
			return
		case <-t.C:
		}
	}
}

// ConnCount reports the open page sockets.
func (s *Server) ConnCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// originAllowed applies the allow-list; with none configured, the server's own origin and
// local development origins are allowed.
func (s *Server) originAllowed(origin string, r *http.Request) bool {
	if origin == "" || origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	patterns := s.cfg.AllowedOrigins
	if len(patterns) == 0 {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		patterns = []string{scheme + "://" + r.Host, "http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"}
	}
	for _, p := range patterns {
		pat, err := parseOriginPattern(p)
		if err == nil && pat.match(u) {
			return true
		}
	}
	return false
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
