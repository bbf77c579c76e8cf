// Package agui serves the agent to AG-UI front ends: POST /v1/agui takes a RunAgentInput and
// streams the run back as AG-UI events, each thread kept as a session in the store.
package agui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/ratelimit"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Meter counts what the endpoint does; *agentsvc.Server is one.
type Meter interface {
	CountRefused(reason string)
	CountTurn(stopReason string)
	ObserveToolCall(kind, outcome string, d time.Duration)
	// CountPanic is told of every panic a run recovered (byomcp_panics_total{where}); tests
	// fail on it.
	CountPanic(where string, v any)
}

// Options configure a Handler. Zero values take the defaults in brackets.
type Options struct {
	Model llm.Model   // required
	Store store.Store // required: threads are sessions
	// ServerTools are the server-side MCP tools; those exposed to the web
	// (mcpservers.AudienceWeb) are offered next to the client's tools. Nil = none.
	ServerTools mcpservers.ServerTools
	// OriginAllowed applies the Origin allow-list (required; (*agentsvc.Server).OriginAllowed).
	OriginAllowed func(origin string, r *http.Request) bool
	// SystemPrompt replaces the default instructions.
	SystemPrompt string
	// ConfirmTools are server tool names ("<server>__<tool>") whose every call the visitor
	// confirms (--confirm-tools), besides destructive tools and the site's confirmTools: the
	// run ends with an interrupt instead (confirm.go).
	ConfirmTools []string
	// InterruptTTL is how long a confirmation may be answered [15 min].
	InterruptTTL time.Duration
	// InputTTL is how long a server call whose server asks the visitor something waits,
	// parked, for the answer [10 min: mcpservers.DefaultMaxTimeout, the hard bound of a
	// server call] (elicit.go).
	InputTTL time.Duration
	// MaxParked bounds the server calls parked at once in this process, waiting for the
	// visitor's answer [64]; a question past it is declined.
	MaxParked int
	// Now is the clock of interrupts' expiry (nil: time.Now).
	Now     func() time.Time
	Limits  loop.Limits // per run (loop.Limits' defaults)
	MaxText int         // bytes of one new user message [32 KiB]
	MaxNew  int         // user and tool messages one run may add to its thread [256]
	// MaxContext bounds the entries of a run's context [64]; their size as rendered into the
	// system prompt is bounded by MaxText.
	MaxContext int
	MaxBody    int64   // bytes of one request body [4 MiB]
	RunRate    float64 // runs per second per client address, not a loopback one [2]
	RunBurst   int     // [20]
	// StartRun takes a slot of the agent's running turns for a run that calls the model
	// ((*agentsvc.Server).StartRun: the socket's --max-turns and --client-turns); release
	// gives it back. Over a bound: wire.ErrClientBusy itself (429) or another error (503). Nil: no
	// bound but the one run per thread.
	StartRun func(r *http.Request) (release func(), err error)
	// ClaimTTL bounds how long a crashed replica keeps a thread locked [10 s].
	ClaimTTL time.Duration
	// ShutdownGrace is how long running runs may go on once Shutdown is called [10 s].
	ShutdownGrace time.Duration
	WriteTimeout  time.Duration // per event written [10 s]
	Logger        *zap.Logger
	Meter         Meter // nil = nothing counted
	// Site returns the site of a request's Origin (as the page socket picks it, and the
	// thread's origin is the request's): its instructions, model, turn guards, server tools
	// and token budget apply to the run. Nil = no sites (these Options for every run).
	Site func(origin string) Site
}

// Site is what a site changes in a run; *sites.Site is one, and its methods take nil (no
// site: the defaults given to them).
type Site interface {
	// Label names the site in logs ("" for none).
	Label() string
	// SystemPrompt returns the site's instructions, def when it has none, with its locale.
	SystemPrompt(def string) string
	// Model returns the site's model, def when it names none.
	Model(def llm.Model) llm.Model
	// Guards returns the site's turn guards; 0 keeps Options.Limits'.
	Guards() (maxModelCalls, maxToolCalls int)
	// AllowsServer reports whether the site's runs may use a server tool ("<server>__<tool>").
	AllowsServer(toolName string) bool
	// Confirms reports whether the site's confirm policy (confirmTools) names a tool.
	Confirms(toolName string) bool
	// Admit checks the site's token budget before a run of session (the thread): an error
	// refuses the run, its message for the user.
	Admit(session string) error
	// Meter wraps m so that each model call of session is checked against the budget and
	// its tokens charged.
	Meter(m llm.Model, session string) llm.Model
}

// noSite is the Site of a run when Options.Site is nil: the handler's settings.
type noSite struct{}

func (noSite) Label() string                         { return "" }
func (noSite) SystemPrompt(def string) string        { return def }
func (noSite) Model(def llm.Model) llm.Model         { return def }
func (noSite) Guards() (int, int)                    { return 0, 0 }
func (noSite) AllowsServer(string) bool              { return true }
func (noSite) Confirms(string) bool                  { return false }
func (noSite) Admit(string) error                    { return nil }
func (noSite) Meter(m llm.Model, _ string) llm.Model { return m }

// Handler serves POST /v1/agui and its CORS preflight.
type Handler struct {
	o     Options
	log   *zap.Logger
	owner string // this process as the owner of thread claims
	rate  *ratelimit.Keyed

	mu      sync.Mutex
	threads map[string]bool // threads with a run in this process
	cancels map[*run]context.CancelCauseFunc
	closing bool
	runs    sync.WaitGroup

	parked *parkedCalls // server calls waiting for the visitor's answer (elicit.go)
}

// New checks o and returns a Handler.
func New(o Options) (*Handler, error) {
	if o.Model == nil || o.Store == nil || o.OriginAllowed == nil {
		return nil, errors.New("agui: Options.Model, Store and OriginAllowed are required")
	}
	if o.MaxText <= 0 {
		o.MaxText = 32 << 10
	}
	if o.MaxNew <= 0 {
		o.MaxNew = 256
	}
	if o.MaxContext <= 0 {
		o.MaxContext = 64
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 4 << 20
	}
	if o.RunRate <= 0 {
		o.RunRate = 2
	}
	if o.RunBurst <= 0 {
		o.RunBurst = 20
	}
	if o.ClaimTTL <= 0 {
		o.ClaimTTL = 10 * time.Second
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Meter == nil {
		o.Meter = noMeter{}
	}
	if o.MaxParked <= 0 {
		o.MaxParked = maxParkedCalls
	}
	return &Handler{
		parked:  &parkedCalls{max: o.MaxParked},
		o:       o,
		log:     o.Logger,
		owner:   "agui-" + randomID(8),
		rate:    ratelimit.NewKeyed(o.RunRate, o.RunBurst, 10000),
		threads: map[string]bool{},
		cancels: map[*run]context.CancelCauseFunc{},
	}, nil
}

type noMeter struct{}

func (noMeter) CountRefused(string)                           {}
func (noMeter) CountTurn(string)                              {}
func (noMeter) ObserveToolCall(string, string, time.Duration) {}
func (noMeter) CountPanic(string, any)                        {}

// maxIDLen bounds threadId and runId.
const maxIDLen = 256

// ServeHTTP answers the preflight, checks the request and runs the agent, streaming events.
//
// Origin policy: the same allow-list as the page socket, and a request without an Origin
// header is refused too. The check keeps other sites' pages from using the agent through
// their visitors' browsers; it is not authentication (a server-side client can send any
// Origin header, and does so to say which site's threads it acts for).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A bug while serving one request ends that request only, logged with its stack and
		// counted; net/http then drops the connection without logging it again.
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			h.log.Error("agui: panic serving a run", zap.Any("panic", v), zap.Stack("stack"))
			h.o.Meter.CountPanic("agui_handler", v)
			panic(http.ErrAbortHandler)
		}
	}()
	origin := r.Header.Get("Origin")
	if !h.o.OriginAllowed(origin, r) {
		h.log.Warn("agui: refused origin", zap.String("origin", origin), zap.String("remote", r.RemoteAddr))
		h.o.Meter.CountRefused("origin")
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Set("Access-Control-Expose-Headers", "Retry-After") // a page reads it on 429
	hd.Add("Vary", "Origin")
	switch r.Method {
	case http.MethodOptions:
		hd.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		hd.Set("Access-Control-Allow-Headers", allowedHeaders(r.Header.Get("Access-Control-Request-Headers")))
		hd.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		hd.Set("Allow", "POST, OPTIONS")
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	if client := ratelimit.Client(r); client != "" && !h.rate.Allow(client, time.Now()) {
		h.o.Meter.CountRefused("rate_limit")
		hd.Set("Retry-After", "1")
		http.Error(w, "too many runs: slow down", http.StatusTooManyRequests)
		return
	}
	in, err := decodeInput(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.o.Meter.CountRefused("too_big")
			http.Error(w, fmt.Sprintf("request body over %d bytes", h.o.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if herr := h.checkContext(in); herr != nil {
		h.o.Meter.CountRefused("too_big")
		http.Error(w, herr.msg, herr.status)
		return
	}
	h.serveRun(w, r, origin, in)
}

// allowedHeaders answers a preflight's Access-Control-Request-Headers: the requested header
// names (tokens only), else the ones HttpAgent sends.
func allowedHeaders(requested string) string {
	var out []string
	for _, f := range strings.Split(requested, ",") {
		f = strings.TrimSpace(f)
		if f != "" && isToken(f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "Content-Type, Accept"
	}
	return strings.Join(out, ", ")
}

func isToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

// Shutdown refuses new runs, ends the server calls parked for the visitor's answer (their
// questions answered cancel), lets running runs go on for the grace period, then cancels
// them, and returns when they have all ended or ctx is done.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	h.parked.closeAll()
	done := make(chan struct{})
	go func() { h.runs.Wait(); close(done) }()
	grace := time.NewTimer(h.o.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return nil
	case <-grace.C:
	case <-ctx.Done():
	}
	h.mu.Lock()
	for _, cancel := range h.cancels {
		cancel(errShutdown)
	}
	h.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errShutdown = errors.New("agui: server shutting down")

// threadKey is the store id of origin's thread threadID. Threads are scoped by origin: two
// origins using one threadId have a thread each, and neither can take the other's id. The
// id is in the store's thread namespace (store.ThreadPrefix), which a page socket cannot
// open, so an AG-UI thread never names a page socket's session or the other way round, and
// any threadId the client picks fits the store's id rule. (Threads stored before the origin
// was part of the key, "agui-" and a hash of threadId alone, are not found: such a thread
// starts afresh, and the old one expires with --session-ttl.)
func threadKey(origin, threadID string) string {
	h := sha256.New()
	fmt.Fprintf(h, "byomcp agui thread\x00%d:%s\x00%s", len(origin), origin, threadID)
	return store.ThreadPrefix + hex.EncodeToString(h.Sum(nil)[:20])
}

// lockThread marks a thread as running in this process; false when it already is.
func (h *Handler) lockThread(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.threads[key] {
		return false
	}
	h.threads[key] = true
	return true
}

func (h *Handler) unlockThread(key string) {
	h.mu.Lock()
	delete(h.threads, key)
	h.mu.Unlock()
}

// serveRun loads or creates the thread, locks it, and runs the agent on it.
func (h *Handler) serveRun(w http.ResponseWriter, r *http.Request, origin string, in *RunAgentInput) {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	h.runs.Add(1)
	h.mu.Unlock()
	defer h.runs.Done()

	key := threadKey(origin, in.ThreadID)
	log := h.log.With(zap.String("thread", key[:13]), zap.String("run", truncate(in.RunID, 40)))
	if !h.lockThread(key) {
		h.o.Meter.CountRefused("busy")
		http.Error(w, "a run is already in progress on this thread", http.StatusConflict)
		return
	}
	defer h.unlockThread(key)

	ctx := r.Context()
	sess, err := h.openThread(ctx, key, origin)
	switch {
	case errors.Is(err, errOtherOrigin):
		http.Error(w, "thread not found", http.StatusNotFound)
		return
	case err != nil:
		log.Error("agui: opening thread", zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	// One run per thread across replicas: the store's claim, renewed while the run lasts.
	ok, _, err := h.o.Store.Claim(ctx, key, h.owner, h.o.ClaimTTL)
	if err != nil {
		log.Error("agui: claiming thread", zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if !ok {
		h.o.Meter.CountRefused("busy")
		http.Error(w, "a run is already in progress on this thread", http.StatusConflict)
		return
	}
	stopRenew := h.renewClaim(key, log)
	defer func() {
		stopRenew()
		if err := h.o.Store.Release(context.WithoutCancel(ctx), key, h.owner); err != nil {
			log.Warn("agui: releasing thread", zap.Error(err))
		}
	}()

	if sess.ActiveTurn != "" { // a run cut short (the claim is ours: it no longer runs)
		if sess, err = h.closeInterrupted(ctx, sess, log); err != nil {
			log.Error("agui: closing an interrupted run", zap.Error(err))
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	}
	var site Site = noSite{}
	if h.o.Site != nil {
		if site = h.o.Site(origin); site == nil {
			site = noSite{}
		}
		if l := site.Label(); l != "" {
			log = log.With(zap.String("site", l))
		}
	}
	ti, err := h.loadInterrupts(ctx, sess)
	if err != nil {
		log.Error("agui: reading the thread's interrupts", zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	rp, herr := h.checkResume(ctx, ti, sess.Messages, in.Resume, site)
	if herr != nil {
		if herr.status == http.StatusRequestEntityTooLarge {
			h.o.Meter.CountRefused("too_big")
		}
		http.Error(w, herr.msg, herr.status)
		return
	}
	for _, warning := range rp.warnings {
		log.Warn("agui: " + warning)
	}
	plan, herr := h.plan(sess, in, rp)
	if herr != nil {
		if herr.status == http.StatusRequestEntityTooLarge {
			h.o.Meter.CountRefused("too_big")
		}
		http.Error(w, herr.msg, herr.status)
		return
	}
	if plan.answer && h.o.StartRun != nil {
		release, err := h.o.StartRun(r)
		if err != nil {
			log.Info("agui: refused a run: over the turn budget", zap.Error(err))
			status := http.StatusServiceUnavailable
			if err == wire.ErrClientBusy { // not errors.Is: both busy errors share their code
				status = http.StatusTooManyRequests
			}
			w.Header().Set("Retry-After", "1")
			http.Error(w, errorMessage(err), status)
			return
		}
		defer release()
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rn := newRun(h, w, in, key, site, log, cancel)
	rn.seq = ti.seq
	h.mu.Lock()
	h.cancels[rn] = cancel
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.cancels, rn)
		h.mu.Unlock()
	}()
	defer func() {
		if p := recover(); p != nil {
			log.Error("agui: panic in a run", zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			rn.out.send(runError{Type: EventRunError, Message: "internal error", Code: "internal_error"})
		}
	}()
	rn.execute(runCtx, plan)
}

var errOtherOrigin = errors.New("agui: thread of another origin")

// openThread loads the thread's session, creating it on first use, bound to origin.
func (h *Handler) openThread(ctx context.Context, key, origin string) (*store.Session, error) {
	for range 2 {
		s, err := h.o.Store.Load(ctx, key)
		if err == nil {
			if s.Origin != origin {
				return nil, errOtherOrigin
			}
			return s, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		now := time.Now()
		err = h.o.Store.Create(ctx, &store.Session{ID: key, Origin: origin, CreatedAt: now, UpdatedAt: now})
		if err == nil {
			return &store.Session{ID: key, Origin: origin, CreatedAt: now, UpdatedAt: now}, nil
		}
		if !errors.Is(err, store.ErrExists) {
			return nil, err
		}
		// Created by a concurrent request: load it.
	}
	return nil, errors.New("agui: thread vanished while it was opened")
}

// renewClaim keeps the thread's claim alive until the returned func is called.
func (h *Handler) renewClaim(key string, log *zap.Logger) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			if p := recover(); p != nil {
				log.Error("agui: panic renewing a claim", zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			}
		}()
		t := time.NewTicker(h.o.ClaimTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), h.o.ClaimTTL/3)
				if _, _, err := h.o.Store.Claim(ctx, key, h.owner, h.o.ClaimTTL); err != nil {
					log.Warn("agui: renewing thread claim", zap.Error(err))
				}
				cancel()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// errorMessage is what the client reads of a refusal: a protocol error's message alone.
func errorMessage(err error) string {
	if e, ok := errors.AsType[*wsrpc.Error](err); ok {
		return e.Message
	}
	return err.Error()
}
