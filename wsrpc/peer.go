package wsrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Defaults of Options.
const (
	DefaultSendQueue    = 256
	DefaultCallTimeout  = 30 * time.Second
	DefaultMaxHandlers  = 64
	DefaultPingInterval = 25 * time.Second
)

// abuseFactor times RateBurst refused messages, with no quiet time in between, closes the peer.
const abuseFactor = 10

// methodCancelled is the notification that cancels a request: params {requestId, reason?}.
const methodCancelled = "notifications/cancelled"

// ErrCancelled is the cause (context.Cause) of a handler's ctx when the remote end cancelled its
// request with notifications/cancelled; the error's text includes the reason given.
var ErrCancelled = errors.New("wsrpc: request cancelled by the peer")

// errInternal is what the remote end sees when a handler failed unexpectedly or panicked.
var errInternal = NewError(CodeInternalError, "internal error")

// errPanicReply is errInternal for a handler that panicked: runHandler closes the peer with
// 1011 once it is queued. Compared by pointer.
var errPanicReply = NewError(CodeInternalError, "internal error")

// Request is an incoming request or notification as the handlers see it.
type Request struct {
	ID     json.RawMessage // as sent by the remote end; nil for a notification
	Method string
	Params json.RawMessage // nil when absent
}

// ErrPanicked is the cause when a goroutine of the peer (a handler, the reader, the writer,
// the keep-alive) panicked: the panic is logged with its stack, reported to Options.OnPanic,
// and the peer is closed with WebSocket status 1011 (internal error), as net/http ends the
// connection of a handler that panicked. Other peers are not affected.
var ErrPanicked = errors.New("wsrpc: internal error: a goroutine of the connection panicked")

// Handler answers a request. The returned value is marshalled as the result (nil gives null);
// a *Reply (see ReplyThen) sends its Result and then runs its After.
// A returned *Error (possibly wrapped) is sent as is; any other error is logged and the remote
// end gets -32603 "internal error". A panic is recovered and answered the same way.
//
// ctx is cancelled when the remote end cancels the request (context.Cause is then ErrCancelled
// with its reason) and when the peer ends; the reply is still sent after a cancel, so the handler
// decides what a cancelled request answers.
type Handler func(ctx context.Context, req *Request) (any, error)

// NotificationHandler handles a notification. It runs in the read goroutine, in arrival order,
// so it must return quickly and must not wait for a Call.
type NotificationHandler func(ctx context.Context, req *Request)

// Options configures a Peer. Zero fields take the defaults.
type Options struct {
	// Logger receives the peer's logs; message bodies are logged at Debug only. nil: no logs.
	Logger *zap.Logger
	// SendQueue is the number of encoded messages waiting to be written (default 256). When it
	// overflows the remote end is too slow: the peer ends with ErrSlowPeer. The queue grows on
	// demand, so an idle peer holds none of it.
	SendQueue int
	// CallTimeout bounds a Call whose ctx has no deadline (default 30 s; negative: none).
	CallTimeout time.Duration
	// MaxHandlers is the number of incoming requests handled at once (default 64). One more is
	// answered with CodeBusy "too many concurrent requests".
	MaxHandlers int
	// PingInterval is the keep-alive period when the conn is a Pinger (default 25 s; negative: off).
	PingInterval time.Duration
	// RateLimit is the number of incoming requests, notifications and malformed messages
	// allowed per second, a token bucket of RateBurst (0: unlimited). Over it a request is answered with
	// CodeRateLimited "rate limited" and a notification is dropped; after 10×RateBurst refused
	// messages without the bucket filling up again in between, the peer is closed with
	// WebSocket status 1008 and cause ErrRateLimited. Responses are not counted.
	RateLimit float64
	// RateBurst is the bucket size (default max(1, int(RateLimit))).
	RateBurst int
	// OnClose, if set, is called once with the cause when the peer has ended and all its
	// goroutines (handlers included) have returned.
	OnClose func(err error)
	// OnPanic, if set, is called with where it happened ("handler", "notification", "after",
	// "read", "write", "ping", "close": Run's done, "linger": a WebSocket's lingering close)
	// and the value of every panic the peer recovers, after it was
	// logged with its stack at Error level. Tests make it fail the test: a recovered panic is
	// still a bug. It must not panic itself.
	OnPanic func(where string, v any)
}

// Peer is one end of a bidirectional JSON-RPC 2.0 connection: it calls the remote end (Call,
// Notify) and answers it (Handle, HandleNotification) over a MessageConn.
//
// Concurrency rules:
//   - One goroutine reads (ReadMessage): the caller of Serve, or the goroutine Start starts.
//   - At most one goroutine writes (WriteMessage). Everyone else marshals first and puts the
//     finished bytes on a bounded queue; a full queue ends the peer with ErrSlowPeer instead of
//     blocking. The write goroutine is started by the first message queued while none runs and
//     ends when the queue is empty, so an idle peer costs one goroutine (the reader), not two.
//     Nothing writes JSON straight to the connection, so a marshalling error can never leave
//     half a message. The keep-alive Ping runs from a timer (a Pinger allows it concurrently
//     with WriteMessage).
//   - NotifyWhenRoom, for bursts the peer makes itself (reports, not replies), waits while
//     the queue is half full instead of adding to it: the write goroutine, the one closer of
//     the room channel, closes it each time it takes the queue.
//   - Call inserts its pending entry before its request is queued and deletes it on return
//     (defer). The reply channel has a buffer of 1 and the read goroutine removes the entry
//     before sending, so delivering a reply never blocks. Call waits on the reply, ctx.Done()
//     and Done(); when the read goroutine ends, the peer ends and every waiter is released at
//     once with an error wrapping ErrClosed and the cause.
//   - Responses are matched only against our own pending calls (our ids are integers);
//     anything else is logged and dropped.
//   - Each incoming request runs in its own goroutine (at most Options.MaxHandlers), so a
//     handler that calls back the remote end never blocks the read goroutine. Notifications run
//     in the read goroutine, in order. A request's entry in the in-flight map and its handler
//     slot are released before its reply is queued, so the remote end may reuse the id at once.
//   - Close and CloseWithStatus are idempotent and safe from any goroutine; Wait returns why
//     the peer ended once all its goroutines, handlers included, have returned.
//   - Every goroutine of the peer (reader, writer, handlers, reply follow-ups, the keep-alive
//     timer) recovers a panic: it is logged with its stack, reported to Options.OnPanic, a
//     request whose handler panicked is answered -32603, and the peer is closed with status
//     1011 and cause ErrPanicked. A panic never takes the process down.
//   - Lock order: p.mu is a leaf (nothing else is locked while it is held, and no callback
//     runs under it).
//
// Handle and HandleNotification must be called before Start (or Serve); Call and Notify may
// be called from any goroutine, before or after Start.
type Peer struct {
	conn   MessageConn
	log    *zap.Logger
	opts   Options
	pinger Pinger  // conn as a Pinger, or nil
	routes []route // by method; a handful per peer

	done     chan struct{} // closed when the peer has ended
	finished chan struct{} // closed when every goroutine has returned and OnClose ran

	// baseCtx is the ctx of notification handlers, cancelled when the peer ends. Request
	// handlers get contexts of their own, cancelled through inflight: as children of baseCtx
	// they would leave a map in it behind (measured: ~1.7 KiB per idle socket).
	baseCtx    context.Context
	cancelBase context.CancelCauseFunc

	nextID  atomic.Int64
	closing atomic.Bool // CloseWithStatus started: incoming requests are dropped

	mu           sync.Mutex
	started      bool
	closed       bool
	pendingCause error // the cause given to CloseWithStatus, used when the peer ends
	cause        error // why the peer ended; set before done is closed
	causeWeak    bool  // cause is a write that met the remote end's close: the read loop's error replaces it
	closedErr    error // wraps ErrClosed and cause; set before done is closed
	// pending and inflight are nil while empty: an idle socket (most of them) holds neither
	// map's buckets.
	pending   map[int64]chan response
	inflight  map[string]context.CancelCauseFunc // incoming requests by idKey
	running   int                                // incoming requests being handled
	queue     []*outMsg                          // encoded messages waiting for the writer
	room      chan struct{}                      // NotifyWhenRoom waits on it; closed by the writer when it takes the queue
	writing   bool                               // a write goroutine runs (or the close began)
	closeReq  *closeRequest                      // CloseWithStatus: write the queue, then close
	pingTimer *time.Timer                        // the keep-alive, while started and open
	onEnd     func(error)                        // Run's done

	loopsLeft atomic.Int32   // read and write goroutines still running
	handling  sync.WaitGroup // request handler goroutines

	// Owned by the read goroutine.
	limiter *tokenBucket
	refused int
}

// response is what the read goroutine hands to a waiting Call.
type response struct {
	result json.RawMessage
	err    error
}

// closeRequest asks the write goroutine to flush and close with a WebSocket status.
type closeRequest struct {
	code   int
	reason string
	cause  error
}

// NewPeer returns a peer over conn. Register handlers, then call Start.
func NewPeer(conn MessageConn, o Options) *Peer {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.SendQueue <= 0 {
		o.SendQueue = DefaultSendQueue
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxHandlers <= 0 {
		o.MaxHandlers = DefaultMaxHandlers
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.RateBurst <= 0 {
		o.RateBurst = max(1, int(o.RateLimit))
	}
	p := &Peer{
		conn:     conn,
		log:      o.Logger,
		opts:     o,
		done:     make(chan struct{}),
		finished: make(chan struct{}),
	}
	p.pinger, _ = conn.(Pinger)
	if pr, ok := conn.(panicReporter); ok {
		pr.setPanicReporter(func(v any) { p.reportPanic("linger", "lingering close panicked", "", v) })
	}
	p.baseCtx, p.cancelBase = context.WithCancelCause(context.Background())
	if o.RateLimit > 0 {
		p.limiter = newTokenBucket(o.RateLimit, o.RateBurst, time.Now())
	}
	return p
}

// route is what a peer does with a method's requests (Handle, HandleStart) and
// notifications (HandleNotification). A peer's routes are a slice looked through in order:
// three maps were ~0.6 KiB of every open socket, for the four or five methods a peer has.
type route struct {
	method string
	h      Handler
	start  func(*Request) Handler // HandleStart: run in the read goroutine
	notif  NotificationHandler
}

// route returns the route of method, or nil.
func (p *Peer) route(method string) *route {
	for i := range p.routes {
		if p.routes[i].method == method {
			return &p.routes[i]
		}
	}
	return nil
}

// routeToSet returns the route of method, added when missing, for a registration before Start.
func (p *Peer) routeToSet(fn, method string) *route {
	p.mustNotBeStarted(fn)
	if r := p.route(method); r != nil {
		return r
	}
	// Grown by one: the slice is kept for the socket's life, and registration is done once.
	p.routes = append(make([]route, 0, len(p.routes)+1), p.routes...)
	p.routes = append(p.routes, route{method: method})
	return &p.routes[len(p.routes)-1]
}

// Handle registers the handler of requests for method. It panics when called after Start.
func (p *Peer) Handle(method string, h Handler) {
	p.routeToSet("Handle", method).h = h
}

// HandleStart registers a request handler in two steps: start runs in the read goroutine,
// in arrival order, once the request is accepted (not refused as busy, rate limited or a
// duplicate id), and returns the Handler that then runs in its own goroutine like any other.
// start lets requests of one connection see their order (for example, one waits for the
// request that came before it); it must return quickly and never wait for the remote end.
// It panics when called after Start.
func (p *Peer) HandleStart(method string, start func(req *Request) Handler) {
	p.routeToSet("HandleStart", method).start = start
}

// HandleNotification registers the handler of notifications for method. It panics when called
// after Start. A handler for notifications/cancelled runs after the peer has cancelled the request.
func (p *Peer) HandleNotification(method string, h NotificationHandler) {
	p.routeToSet("HandleNotification", method).notif = h
}

func (p *Peer) mustNotBeStarted(fn string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		panic("wsrpc: " + fn + " called after Start")
	}
}

// Start starts the read goroutine (and the keep-alive); the write goroutine runs while
// messages are queued. Over a socket of Accept (on Linux) the read goroutine, too, runs
// only while a message is being read: between messages the socket waits in the process's
// poller, so an idle peer holds no goroutine. Later calls do nothing, and so does a call
// after Close.
func (p *Peer) Start() {
	if !p.begin() {
		return
	}
	if pk, ok := p.conn.(parker); ok && pk.parkRead(p.resumeRead) {
		return // the first message is read by the goroutine the poller starts
	}
	go p.readLoop()
}

// Serve is Start and Wait in one, with the reading done by the calling goroutine instead of a
// new one: an HTTP handler that serves its socket until it closes uses no goroutine for it.
// (Between messages the calling goroutine waits in Wait; see Run to keep none.)
func (p *Peer) Serve() error {
	if p.begin() {
		p.readLoop()
	}
	return p.Wait()
}

// Run is Start, then done is called with the cause (what Wait returns) once the peer has
// ended and all its goroutines have returned, after Options.OnClose and before Wait
// returns: a server that serves its sockets this way keeps no goroutine per idle socket.
// done runs in the peer's last goroutine (a panic in it is recovered and reported like the
// peer's own). On a peer closed before it started, done is called at once; Run after Start
// or Serve does nothing.
func (p *Peer) Run(done func(cause error)) {
	p.mu.Lock()
	switch {
	case p.started:
		p.mu.Unlock()
		return
	case p.closed: // Close has finished it, or is about to
		p.mu.Unlock()
		<-p.finished
		p.runEnd(done)
		return
	}
	p.onEnd = done
	p.mu.Unlock()
	p.Start()
}

// runEnd calls Run's done with the cause, containing a panic.
func (p *Peer) runEnd(done func(error)) {
	defer func() {
		if r := recover(); r != nil {
			p.reportPanic("close", "end of connection panicked", "", r)
		}
	}()
	done(p.cause)
}

// begin marks the peer started and arms the keep-alive; it reports false when the peer was
// already started or closed. The caller then runs readLoop.
func (p *Peer) begin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return false
	}
	p.started = true
	p.loopsLeft.Store(1)
	if len(p.queue) > 0 { // queued before Start
		p.startWriterLocked()
	}
	if p.pinger != nil && p.opts.PingInterval > 0 {
		p.pingTimer = time.AfterFunc(p.opts.PingInterval, p.ping)
	}
	return true
}

// startWriterLocked starts the write goroutine; p.mu is held and none runs.
func (p *Peer) startWriterLocked() {
	p.writing = true
	p.loopsLeft.Add(1)
	go p.writeLoop()
}

// ping sends the keep-alive and arms the next one (in a timer goroutine).
func (p *Peer) ping() {
	defer p.recoverPanic("ping")
	if err := p.pinger.Ping(); err != nil {
		p.Close(fmt.Errorf("wsrpc: ping: %w", err))
		return
	}
	p.mu.Lock()
	if !p.closed {
		p.pingTimer.Reset(p.opts.PingInterval)
	}
	p.mu.Unlock()
}

// Done is closed when the peer has ended (its goroutines may still be finishing; see Wait).
func (p *Peer) Done() <-chan struct{} { return p.done }

// Wait blocks until the peer has ended and all its goroutines, handlers included, have
// returned, then returns why it ended: the read or write error (e.g. wrapping io.EOF or a
// *websocket.CloseError), ErrSlowPeer, ErrRateLimited, or what was given to Close (ErrClosed
// for Close(nil)). A peer that was never started nor closed never ends.
func (p *Peer) Wait() error {
	<-p.finished
	return p.cause
}

// Close ends the peer at once: it closes the connection, releases every waiting Call with an
// error wrapping ErrClosed and cause, and cancels the handlers' contexts. Messages still queued
// are dropped (see CloseWithStatus). A nil cause means ErrClosed. Only the first call counts.
func (p *Peer) Close(cause error) {
	p.mu.Lock()
	if p.closed {
		if p.causeWeak && cause != nil && !errors.Is(cause, errRemoteClosing) {
			p.cause, p.causeWeak = cause, false // the remote end's close, read after the write that met it
		}
		p.mu.Unlock()
		return
	}
	if p.pendingCause != nil {
		cause = p.pendingCause
	}
	if cause == nil {
		cause = ErrClosed
	}
	p.closed = true
	p.cause = cause
	p.causeWeak = errors.Is(cause, errRemoteClosing)
	if errors.Is(cause, ErrClosed) {
		p.closedErr = cause
	} else {
		p.closedErr = fmt.Errorf("%w: %w", ErrClosed, cause)
	}
	started := p.started
	if p.pingTimer != nil {
		p.pingTimer.Stop()
	}
	close(p.done)
	running := make([]context.CancelCauseFunc, 0, len(p.inflight))
	for _, cancel := range p.inflight {
		running = append(running, cancel)
	}
	p.mu.Unlock()

	p.cancelBase(p.closedErr)
	for _, cancel := range running {
		cancel(p.closedErr)
	}
	if err := p.conn.Close(); err != nil {
		p.log.Debug("closing connection", zap.Error(err))
	}
	if !started {
		p.finish()
	}
}

// CloseWithStatus ends the peer gracefully: the messages already queued are written, then the
// connection is closed with a WebSocket close status (when it is a StatusCloser), e.g. 1001
// when the server shuts down. Incoming requests are ignored meanwhile. It does not wait; use
// Wait. The cause is an error wrapping ErrClosed that names code and reason.
func (p *Peer) CloseWithStatus(code int, reason string) {
	p.closeWithStatus(code, reason, fmt.Errorf("%w with status %d: %s", ErrClosed, code, reason))
}

func (p *Peer) closeWithStatus(code int, reason string, cause error) {
	p.mu.Lock()
	if p.closed || p.closing.Load() {
		p.mu.Unlock()
		return
	}
	p.closing.Store(true)
	p.pendingCause = cause
	if !p.started {
		p.mu.Unlock()
		p.closeConn(code, reason)
		p.Close(cause)
		return
	}
	p.closeReq = &closeRequest{code: code, reason: reason, cause: cause}
	if !p.writing {
		p.startWriterLocked()
	}
	p.mu.Unlock()
}

// closeConn closes the connection with a status when it supports that.
func (p *Peer) closeConn(code int, reason string) {
	if sc, ok := p.conn.(StatusCloser); ok {
		if err := sc.CloseWithStatus(code, reason); err != nil {
			p.log.Debug("closing connection with status", zap.Int("status", code), zap.Error(err))
		}
	}
}

// loopDone is deferred by the read and write loops: the last of them to end waits for the
// handlers and finishes the peer, so no goroutine waits for that.
func (p *Peer) loopDone() {
	if p.loopsLeft.Add(-1) == 0 {
		p.handling.Wait()
		p.finish()
	}
}

func (p *Peer) finish() {
	if p.opts.OnClose != nil {
		p.opts.OnClose(p.cause)
	}
	p.mu.Lock()
	done := p.onEnd
	p.mu.Unlock()
	if done != nil {
		p.runEnd(done)
	}
	close(p.finished)
}

// enqueue hands an encoded message to the write goroutine without blocking, starting one
// when none runs.
func (p *Peer) enqueue(m *outMsg) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		putOut(m)
		return p.closedErr
	}
	if len(p.queue) >= p.opts.SendQueue {
		p.mu.Unlock()
		putOut(m)
		p.log.Warn("send queue full, dropping the peer", zap.Int("queue", p.opts.SendQueue))
		p.Close(ErrSlowPeer)
		return p.closedErr
	}
	p.queue = append(p.queue, m)
	if p.started && !p.writing {
		p.startWriterLocked()
	}
	p.mu.Unlock()
	return nil
}

// Call sends a request and waits for its response, decoded into result: nil discards it and a
// *json.RawMessage receives it as is. An error response comes back as an *Error (wrapped).
//
// Without a deadline in ctx, Options.CallTimeout applies. When ctx ends first, Call sends
// notifications/cancelled {requestId, reason} (reason: the ctx cause's text, else "timeout" or
// "cancelled") and returns an error wrapping ctx.Err() and its cause. When the peer ends first,
// the error wraps ErrClosed.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wsrpc: call %q: %w", method, ctxError(ctx))
	}
	var timeout <-chan time.Time // a plain timer is cheaper than a derived context
	if _, ok := ctx.Deadline(); !ok && p.opts.CallTimeout > 0 {
		t := time.NewTimer(p.opts.CallTimeout)
		defer t.Stop()
		timeout = t.C
	}
	id := p.nextID.Add(1)
	m, err := encodeCall(id, true, method, params)
	if err != nil {
		return fmt.Errorf("wsrpc: call %q: encoding params: %w", method, err)
	}
	reply := make(chan response, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		putOut(m)
		return fmt.Errorf("wsrpc: call %q: %w", method, p.closedErr)
	}
	if p.pending == nil {
		p.pending = make(map[int64]chan response)
	}
	p.pending[id] = reply
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.forgetCall(id)
		p.mu.Unlock()
	}()
	if err := p.enqueue(m); err != nil {
		return fmt.Errorf("wsrpc: call %q: %w", method, err)
	}

	var r response
	select {
	case r = <-reply:
	case <-ctx.Done():
		select {
		case r = <-reply: // the reply won the race
		default:
			if ctx.Value(noCancelNotice{}) == nil {
				p.cancelRemote(id, cancelReason(ctx))
			}
			return fmt.Errorf("wsrpc: call %q: %w", method, ctxError(ctx))
		}
	case <-timeout:
		select {
		case r = <-reply:
		default:
			if ctx.Value(noCancelNotice{}) == nil {
				p.cancelRemote(id, "timeout")
			}
			return fmt.Errorf("wsrpc: call %q: %w", method, context.DeadlineExceeded)
		}
	case <-p.done:
		select {
		case r = <-reply:
		default:
			return fmt.Errorf("wsrpc: call %q: %w", method, p.closedErr)
		}
	}
	if r.err != nil {
		return fmt.Errorf("wsrpc: call %q: %w", method, r.err)
	}
	switch res := result.(type) {
	case nil:
	case *json.RawMessage:
		*res = r.result
	default:
		if err := json.Unmarshal(r.result, result); err != nil {
			return fmt.Errorf("wsrpc: call %q: decoding result: %w", method, err)
		}
	}
	return nil
}

type noCancelNotice struct{}

// WithoutCancelNotice returns ctx for a Call that sends no notifications/cancelled when it
// ends by ctx or its timeout (MCP: a client never cancels initialize).
func WithoutCancelNotice(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCancelNotice{}, true)
}

// ctxError is ctx.Err(), also wrapping the cause when it says more.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// cancelReason is the reason sent when ctx ended a call: the cause's text when there is one,
// else "timeout" or "cancelled".
func cancelReason(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return cause.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timeout"
	}
	return "cancelled"
}

// cancelRemote tells the remote end that we no longer wait for call id.
func (p *Peer) cancelRemote(id int64, reason string) {
	m, err := encodeCall(0, false, methodCancelled, cancelledParams{RequestID: id, Reason: reason})
	if err == nil {
		err = p.enqueue(m)
	}
	if err != nil {
		p.log.Debug("sending cancellation", zap.Int64("id", id), zap.Error(err))
	}
}

// cancelledParams are the params of notifications/cancelled that we send.
type cancelledParams struct {
	RequestID int64  `json:"requestId"`
	Reason    string `json:"reason,omitempty"`
}

// Notify sends a notification. It returns once the message is queued (an error wrapping
// ErrClosed when the peer has ended), not when it is written.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, ctxError(ctx))
	}
	m, err := encodeCall(0, false, method, params)
	if err != nil {
		return fmt.Errorf("wsrpc: notify %q: encoding params: %w", method, err)
	}
	if err := p.enqueue(m); err != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, err)
	}
	return nil
}

// NotifyEncoded is Notify with params the caller has encoded already: the concatenation
// of parts, which must be one JSON object or array. It is checked, but written as it is,
// neither compacted nor encoded again (Notify with a json.RawMessage would copy it twice).
func (p *Peer) NotifyEncoded(ctx context.Context, method string, parts ...[]byte) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, ctxError(ctx))
	}
	m, err := encodeEncodedNotify(method, parts)
	if err != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, err)
	}
	if err := p.enqueue(m); err != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, err)
	}
	return nil
}

// NotifyWhenRoom is Notify for a burst of messages the peer makes itself (reports of its
// own, not answers to the remote end): while the send queue is half full or more, it waits
// for the write goroutine to take the queue instead of adding to it. Such a burst, however
// long, never fills the queue, never ends the peer with ErrSlowPeer, and leaves half of the
// queue to everything else. A remote end that stops reading still ends the peer (its write
// times out), and with it the wait; ctx bounds the wait too.
func (p *Peer) NotifyWhenRoom(ctx context.Context, method string, params any) error {
	if err := p.waitRoom(ctx); err != nil {
		return fmt.Errorf("wsrpc: notify %q: %w", method, err)
	}
	return p.Notify(ctx, method, params)
}

// waitRoom waits until the send queue is less than half full (or the peer has not started:
// nothing takes the queue yet, and Notify decides).
func (p *Peer) waitRoom(ctx context.Context) error {
	half := max(1, p.opts.SendQueue/2)
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return p.closedErr
		}
		if !p.started || len(p.queue) < half {
			p.mu.Unlock()
			return nil
		}
		if p.room == nil {
			p.room = make(chan struct{})
		}
		room := p.room
		p.mu.Unlock()
		select {
		case <-room:
		case <-p.done:
		case <-ctx.Done():
			return ctxError(ctx)
		}
	}
}

// writeLoop writes the queue until it is empty, then ends; it is the only goroutine writing
// (startWriterLocked starts it only when none runs). After a CloseWithStatus it writes what is
// queued, then closes with the status.
func (p *Peer) writeLoop() {
	defer p.loopDone()
	defer p.recoverPanic("write")
	// Let the goroutines that are ready to run go first: under load they queue more messages,
	// which then share one write (a tool call's request and its events, parallel calls);
	// when nothing else is ready this returns at once.
	runtime.Gosched()
	var batch []*outMsg
	for {
		p.mu.Lock()
		if p.closed {
			for _, m := range p.queue {
				putOut(m)
			}
			p.queue = nil
			p.mu.Unlock()
			return
		}
		req := p.closeReq
		if len(p.queue) == 0 && req == nil {
			p.writing = false
			p.queue = nil // an idle peer keeps no queue
			p.mu.Unlock()
			return
		}
		batch, p.queue = p.queue, batch[:0]
		if p.room != nil { // the queue is empty: wake NotifyWhenRoom
			close(p.room)
			p.room = nil
		}
		p.mu.Unlock()
		if !p.writeBatch(batch) {
			return
		}
		if req != nil { // what was queued when the close began is written
			p.closeConn(req.code, req.reason)
			p.Close(req.cause)
			return
		}
	}
}

// writeBatch writes the messages in order, in one write to the network when the connection
// is a batcher; on error it ends the peer and reports false.
func (p *Peer) writeBatch(batch []*outMsg) bool {
	b, gather := p.conn.(batcher)
	gather = gather && len(batch) > 1
	if gather {
		b.startBatch()
	}
	ok := true
	for i, m := range batch {
		batch[i] = nil
		if !ok {
			putOut(m)
			continue
		}
		ok = p.write(m)
	}
	if gather {
		if err := b.endBatch(); err != nil && ok {
			p.Close(fmt.Errorf("wsrpc: write: %w", err))
			ok = false
		}
	}
	return ok
}

// write writes one message; on error it ends the peer and reports false.
func (p *Peer) write(m *outMsg) bool {
	if ce := p.log.Check(zap.DebugLevel, "send"); ce != nil {
		ce.Write(zap.ByteString("message", m.bytes()))
	}
	err := p.conn.WriteMessage(m.bytes())
	putOut(m)
	if err != nil {
		p.Close(fmt.Errorf("wsrpc: write: %w", err))
		return false
	}
	return true
}

// errRemoteClosing is a write that failed because the remote end's close frame was read and
// answered meanwhile: the read loop is about to end the peer with the remote end's status,
// which is why the peer ended, so it replaces this cause (Close). A ping that meets this
// end's own close frame is one too: the reader that sent it (an unfinished message's
// timeout) ends the peer with its cause.
var errRemoteClosing = errors.New("wsrpc: the connection is closing")

// parker is a MessageConn that can wait for its next message without a goroutine (the
// sockets of Accept, on Linux).
type parker interface {
	// parkRead arranges for resume to run in a new goroutine once the next ReadMessage can
	// proceed (bytes came, the read deadline passed, or the connection was closed) and
	// reports true; false means it cannot now (bytes are already buffered, or nothing can
	// watch the socket) and the caller reads as usual. Only the reader calls it, between
	// messages.
	parkRead(resume func()) bool
}

// readLoop is the only goroutine that reads from the connection. After a message, when the
// connection is a parker with nothing buffered, it parks and returns: the read goroutine
// exists only while there is something to read, and a new one continues the loop (which
// counts as running in loopsLeft meanwhile) with a read.
func (p *Peer) readLoop() {
	parked := false
	defer func() {
		if !parked {
			p.loopDone()
		}
	}()
	defer p.recoverPanic("read")
	pk, _ := p.conn.(parker)
	for {
		data, err := p.conn.ReadMessage()
		if err != nil {
			p.Close(fmt.Errorf("wsrpc: read: %w", err))
			return
		}
		p.handleMessage(data)
		if pk != nil && pk.parkRead(p.resumeRead) {
			parked = true
			return
		}
	}
}

// resumeRead continues a parked read loop (in the goroutine the connection started).
func (p *Peer) resumeRead() { p.readLoop() }

// handleMessage dispatches one incoming message (in the read goroutine).
func (p *Peer) handleMessage(data []byte) {
	if ce := p.log.Check(zap.DebugLevel, "receive"); ce != nil {
		ce.Write(zap.ByteString("message", data))
	}
	msg := decodeMessage(data)
	if msg.kind == kindResponse || msg.kind == kindBadResponse {
		p.deliver(&msg)
		return
	}
	if p.closing.Load() {
		return
	}
	if !p.queueHasRoom() {
		// A burst of requests read in one go is answered faster than the answers are
		// written: the next one waits for the writer (the queue under half full), instead
		// of the queue filling and the peer being dropped as slow. A peer that stops reading
		// is still dropped: its writes time out, and that ends the wait.
		_ = p.waitRoom(p.baseCtx)
	}
	if !p.allow(&msg) {
		return
	}
	switch msg.kind {
	case kindInvalid:
		p.log.Debug("invalid message", zap.Int64("code", msg.err.Code), zap.String("reason", msg.err.Message))
		p.reply(msg.id, nil, msg.err)
	case kindNotification:
		p.handleNotification(&msg)
	case kindRequest:
		p.handleRequest(&msg)
	}
}

// allow applies the rate limit to an incoming request, notification or invalid message.
func (p *Peer) allow(msg *message) bool {
	if p.limiter == nil {
		return true
	}
	ok, calm := p.limiter.allow(time.Now())
	if ok {
		if calm {
			p.refused = 0
		}
		return true
	}
	p.refused++
	if p.refused >= abuseFactor*p.opts.RateBurst {
		if p.refused == abuseFactor*p.opts.RateBurst { // once: what is read after it is refused too
			p.log.Warn("message rate limit exceeded, closing", zap.Int("refused", p.refused))
		}
		p.closeWithStatus(1008, "rate limit exceeded", ErrRateLimited)
		return false
	}
	if msg.kind == kindRequest && p.queueHasRoom() {
		p.reply(msg.id, nil, NewError(CodeRateLimited, "rate limited"))
	}
	return false
}

// queueHasRoom reports whether the send queue, with an answer to come from each running
// handler, is less than three quarters full. A flood read in one burst (thousands of
// requests) was answered faster than the answers were written: they filled the queue and the
// peer was dropped as slow (1006) before the flood counted as abuse (1008). Past that fill
// the reading waits for the writer (handleMessage), and a refused request gets no answer.
// (Counting the queue alone, refusals could take the room the running handlers' answers
// needed: 191 queued, then 64 answers, then one busy reply, under -race in CI.)
func (p *Peer) queueHasRoom() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)+p.running < p.opts.SendQueue*3/4
}

// forgetCall drops a Call's entry from pending (p.mu held).
func (p *Peer) forgetCall(id int64) {
	delete(p.pending, id)
	if len(p.pending) == 0 {
		p.pending = nil
	}
}

// deliver hands a response to the Call waiting for it.
func (p *Peer) deliver(msg *message) {
	var reply chan response
	if id, ok := callID(msg.id); ok {
		p.mu.Lock()
		reply = p.pending[id]
		p.forgetCall(id)
		p.mu.Unlock()
	}
	if reply == nil {
		switch {
		case msg.kind == kindBadResponse:
			p.log.Warn("invalid response dropped", zap.ByteString("id", msg.id), zap.String("reason", msg.err.Message))
		case isNull(msg.id):
			p.log.Warn("the peer reported an error", zap.Int64("code", msg.err.Code), zap.String("error", msg.err.Message))
		default:
			p.log.Debug("response to an unknown request dropped", zap.ByteString("id", msg.id))
		}
		return
	}
	var r response
	switch {
	case msg.kind == kindBadResponse:
		r.err = errors.New("invalid response: " + msg.err.Message)
	case msg.err != nil:
		r.err = msg.err
	default:
		r.result = msg.result
	}
	reply <- r // buffered, and the entry was removed: the only send
}

// reply queues a response; a failure only means the peer has ended.
func (p *Peer) reply(id json.RawMessage, result any, rpcErr *Error) {
	m, err := encodeResponse(id, result, rpcErr)
	if err != nil {
		p.log.Error("encoding a response", zap.Error(err))
		m, _ = encodeResponse(id, nil, errInternal)
	}
	_ = p.enqueue(m)
}

// handleNotification runs a notification's handler in the read goroutine.
func (p *Peer) handleNotification(msg *message) {
	if msg.method == methodCancelled {
		p.cancelIncoming(msg.params)
	}
	var h NotificationHandler
	if r := p.route(msg.method); r != nil {
		h = r.notif
	}
	if h == nil {
		p.log.Debug("notification ignored", zap.String("method", msg.method))
		return
	}
	defer func() {
		if r := recover(); r != nil {
			p.panicked("notification", "notification handler panicked", msg.method, r)
		}
	}()
	h(p.baseCtx, &Request{Method: msg.method, Params: msg.params})
}

// cancelIncoming cancels the ctx of the request named by notifications/cancelled.
func (p *Peer) cancelIncoming(params json.RawMessage) {
	var cp struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    json.RawMessage `json:"reason"`
	}
	if err := json.Unmarshal(params, &cp); err != nil || cp.RequestID == nil {
		p.log.Debug("malformed cancellation ignored")
		return
	}
	key, ok := idKey(cp.RequestID)
	if !ok {
		return
	}
	p.mu.Lock()
	cancel := p.inflight[key]
	p.mu.Unlock()
	if cancel == nil {
		p.log.Debug("cancellation of an unknown request ignored", zap.ByteString("id", cp.RequestID))
		return
	}
	reason, _ := decodeString(cp.Reason)
	const maxReason = 200
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	if reason == "" {
		cancel(ErrCancelled)
	} else {
		cancel(fmt.Errorf("%w: %s", ErrCancelled, reason))
	}
}

// handleRequest starts the handler of a request in its own goroutine.
func (p *Peer) handleRequest(msg *message) {
	var h Handler
	var start func(*Request) Handler
	if r := p.route(msg.method); r != nil {
		h, start = r.h, r.start
	}
	staged := start != nil
	if h == nil && !staged {
		p.reply(msg.id, nil, NewError(CodeMethodNotFound, "method not found"))
		return
	}
	key, _ := idKey(msg.id) // the decoder checked the id
	p.mu.Lock()
	if p.closed { // Close has cancelled the handlers it knew of
		p.mu.Unlock()
		return
	}
	if _, dup := p.inflight[key]; dup {
		p.mu.Unlock()
		p.reply(msg.id, nil, NewError(CodeInvalidRequest, "duplicate request id"))
		return
	}
	if p.running >= p.opts.MaxHandlers {
		p.mu.Unlock()
		p.reply(msg.id, nil, NewError(CodeBusy, "too many concurrent requests"))
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if p.inflight == nil {
		p.inflight = make(map[string]context.CancelCauseFunc)
	}
	p.inflight[key] = cancel
	p.running++
	p.mu.Unlock()

	req := &Request{ID: msg.id, Method: msg.method, Params: msg.params}
	if staged {
		h = p.startHandler(start, req)
	}
	p.handling.Add(1)
	go p.runHandler(ctx, cancel, key, h, req)
}

// startHandler runs a HandleStart's start (in the read goroutine); a panic gives a handler
// that answers -32603, after which the peer closes with 1011.
func (p *Peer) startHandler(start func(*Request) Handler, req *Request) (h Handler) {
	defer func() {
		if r := recover(); r != nil {
			p.reportPanic("handler", "handler panicked", req.Method, r)
			h = func(context.Context, *Request) (any, error) { return nil, errPanicReply }
		}
	}()
	if h = start(req); h == nil {
		h = func(context.Context, *Request) (any, error) { return nil, errInternal }
	}
	return h
}

// runHandler runs one request's handler and queues its reply.
func (p *Peer) runHandler(ctx context.Context, cancel context.CancelCauseFunc, key string, h Handler, req *Request) {
	defer p.handling.Done()
	result, err := p.callHandler(ctx, h, req)
	var after func()
	if r, ok := result.(*Reply); ok && r != nil {
		result, after = r.Result, r.After
	}
	var rpcErr *Error
	if err != nil && (!errors.As(err, &rpcErr) || rpcErr == nil) {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// Ended by its cancellation (the remote end cancelled it, or went): not a failure.
			p.log.Debug("handler cancelled", zap.String("method", req.Method), zap.Error(err))
		} else {
			p.log.Warn("handler failed", zap.String("method", req.Method), zap.Error(err))
		}
		rpcErr = errInternal
	}
	m, encErr := encodeResponse(req.ID, result, rpcErr)
	if encErr != nil {
		p.log.Error("encoding a result", zap.String("method", req.Method), zap.Error(encErr))
		m, _ = encodeResponse(req.ID, nil, errInternal)
	}
	// Free the id and the slot before the remote end can see the reply.
	p.mu.Lock()
	delete(p.inflight, key)
	if len(p.inflight) == 0 {
		p.inflight = nil
	}
	p.running--
	p.mu.Unlock()
	cancel(nil)
	if p.enqueue(m) == nil && after != nil && rpcErr == nil {
		p.runAfter(req.Method, after)
	}
	if rpcErr == errPanicReply { // the -32603 answer is queued: now end the connection
		p.closeAfterPanic("handler")
	}
}

// runAfter runs a Reply's After; a panic is contained (see recoverPanic).
func (p *Peer) runAfter(method string, after func()) {
	defer func() {
		if r := recover(); r != nil {
			p.panicked("after", "reply follow-up panicked", method, r)
		}
	}()
	after()
}

// callHandler calls h, turning a panic into errPanicReply: runHandler answers -32603, then
// closes the peer with 1011 (CloseWithStatus writes what is queued first).
func (p *Peer) callHandler(ctx context.Context, h Handler, req *Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.reportPanic("handler", "handler panicked", req.Method, r)
			result, err = nil, errPanicReply
		}
	}()
	return h(ctx, req)
}

// recoverPanic is deferred by the peer's own goroutines (reader, writer, keep-alive).
func (p *Peer) recoverPanic(where string) {
	if r := recover(); r != nil {
		p.panicked(where, "connection goroutine panicked", "", r)
	}
}

// panicked reports a recovered panic and ends the peer with status 1011, after what is
// queued is written, unless the writer itself is what panicked.
func (p *Peer) panicked(where, msg, method string, v any) {
	p.reportPanic(where, msg, method, v)
	p.closeAfterPanic(where)
}

// reportPanic logs a recovered panic with its stack and reports it to Options.OnPanic.
func (p *Peer) reportPanic(where, msg, method string, v any) {
	p.log.Error(msg, zap.String("where", where), zap.String("method", method),
		zap.Any("panic", v), zap.Stack("stack"))
	if p.opts.OnPanic != nil {
		p.opts.OnPanic(where, v)
	}
}

// closeAfterPanic ends the peer with status 1011 and cause ErrPanicked.
func (p *Peer) closeAfterPanic(where string) {
	if where == "write" {
		p.Close(ErrPanicked) // the writer is gone: nothing more can be written
		return
	}
	p.closeWithStatus(1011, "internal error", ErrPanicked)
}
