// Package console is the operator console at /console: the open tabs and running turns live,
// the stored conversations (search, transcript, export, delete) and health charts drawn from
// the counters of /metrics, behind a sign-in with the console token.
//
// It reads the service through small interfaces (Options): the tabs, a Feed of events, the
// session store and a Prometheus Gatherer, so it works on every store and knows nothing of
// the socket's internals.
package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/store"
)

//go:embed static
var static embed.FS

// Tab is one open page socket.
type Tab struct {
	Replica   string    `json:"replica,omitempty"` // the replica it is connected to ("" without a Cluster)
	ConnID    string    `json:"connId"`
	Origin    string    `json:"origin"`
	Site      string    `json:"site"`
	SessionID string    `json:"sessionId,omitempty"`
	URL       string    `json:"url,omitempty"`
	Title     string    `json:"title,omitempty"`
	Since     time.Time `json:"since"`
	Tools     []Tool    `json:"tools"`
}

// Tool is a tool a tab registered.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Options configure the console. Token, Store, Tabs, Feed and Gatherer are required.
type Options struct {
	Token    string
	Store    store.Store
	Tabs     func() []Tab
	Feed     *Feed
	Gatherer prometheus.Gatherer
	// SiteOf names the site of an origin ("" for none).
	SiteOf func(origin string) string
	// IsSiteOrigin reports whether an origin is a site's (sites.json or --allowed-origins):
	// requests from such origins are refused, so a site's page can never reach the console.
	IsSiteOrigin func(origin string, r *http.Request) bool
	// Forget, if set, drops a conversation held in memory by this process as it is deleted
	// (its running turn is cancelled, its tab is disconnected and starts a new one). It is
	// called before the conversation is deleted from the store, and again after.
	Forget func(id string)
	// Secure marks the cookie Secure although the request came over plain HTTP (a proxy
	// in front ends TLS: --public-url https://…).
	Secure bool
	Logger *zap.Logger
	Now    func() time.Time
	// Cluster, when not nil, shares the tabs and the events with the other replicas of a
	// Redis store (Run); Replica names this one among them.
	Cluster Cluster
	Replica string
	// AppDocument, when not nil, returns the document of server's MCP App resource uri whose
	// SHA-256 is sha256 (hex), for the transcript's read-only view; ErrAppGone (wrapped) when
	// its server no longer has it.
	AppDocument func(ctx context.Context, server, uri, sha256 string) (string, error)
}

// Handler serves /console and /console/api/….
type Handler struct {
	o       Options
	mux     *http.ServeMux
	mac     []byte // key of the sign-in cookies, derived from the token
	limit   *limiter
	log     *zap.Logger
	owners  owners
	refs    refCache
	revoked revocations
	// usedAt is when a console last asked this replica for its tabs or a tool (Unix ns);
	// wake tells Run that a console opened here after none did for presenceTTL.
	usedAt atomic.Int64
	wake   chan struct{}
}

const (
	cookieName = "byomcp_console"
	cookieLife = 12 * time.Hour
	// csrfHeader must be on every state-changing request: a cross-site form cannot send it,
	// and a cross-origin fetch that does needs a preflight the console never grants.
	csrfHeader = "X-Byomcp-Console"
)

// New returns the console handler.
func New(o Options) (*Handler, error) {
	if o.Token == "" || o.Store == nil || o.Tabs == nil || o.Feed == nil || o.Gatherer == nil {
		return nil, errors.New("console: Token, Store, Tabs, Feed and Gatherer are required")
	}
	if len(o.Token) < 16 {
		return nil, errors.New("console: the console token must have at least 16 characters")
	}
	if o.SiteOf == nil {
		o.SiteOf = func(string) string { return "" }
	}
	if o.IsSiteOrigin == nil {
		o.IsSiteOrigin = func(string, *http.Request) bool { return false }
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Cluster != nil && o.Replica == "" {
		return nil, errors.New("console: a Cluster needs the Replica's name")
	}
	// With a Cluster every replica with the token accepts a cookie (a sign-out is shared
	// through the store); without one the key has this process's own secret too, so that the
	// sign-outs it remembers in memory cannot be undone by a restart.
	seed := "byomcp console cookie\x00" + o.Token
	if o.Cluster == nil {
		var nonce [16]byte
		_, _ = rand.Read(nonce[:])
		seed += "\x00" + string(nonce[:])
	}
	sum := sha256.Sum256([]byte(seed))
	h := &Handler{o: o, mux: http.NewServeMux(), mac: sum[:], limit: newLimiter(5, time.Minute), log: o.Logger, wake: make(chan struct{}, 1)}
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	h.mux.Handle("GET /console/{$}", files2(files, "/"))
	h.mux.Handle("GET /console/static/", http.StripPrefix("/console/static", files))
	h.mux.HandleFunc("POST /console/api/signin", h.signIn)
	h.mux.HandleFunc("POST /console/api/signout", h.signOut)
	h.mux.Handle("GET /console/api/me", h.auth(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]bool{"signedIn": true}) }))
	h.mux.Handle("GET /console/api/tabs", h.auth(h.tabs))
	h.mux.Handle("GET /console/api/tools/{ref}", h.auth(h.tool))
	h.mux.Handle("GET /console/api/live", h.auth(h.live))
	h.mux.Handle("GET /console/api/conversations", h.auth(h.list))
	h.mux.Handle("GET /console/api/conversations/{id}", h.auth(h.transcript))
	h.mux.Handle("GET /console/api/conversations/{id}/export", h.auth(h.export))
	h.mux.Handle("GET /console/api/conversations/{id}/apps/{call}", h.auth(h.appDoc))
	h.mux.Handle("DELETE /console/api/conversations/{id}", h.auth(h.delete))
	h.mux.Handle("GET /console/api/metrics", h.auth(h.metrics))
	return h, nil
}

func files2(files http.Handler, path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = path
		files.ServeHTTP(w, r2)
	})
}

// ServeHTTP applies the rules of every console request, then routes it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	if r.URL.Path == "/console" {
		http.Redirect(w, r, "/console/", http.StatusFound)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && (origin == "null" || h.o.IsSiteOrigin(origin, r)) {
		h.log.Warn("console: refused a request from a site's origin", zap.String("origin", origin), zap.String("path", r.URL.Path))
		http.Error(w, "the console is not reachable from a site's pages", http.StatusForbidden)
		return
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		http.Error(w, "the console is not reachable from other sites", http.StatusForbidden)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// signedValue is the cookie's value for an expiry and a sign-in's id: "unix.id.hmac".
func (h *Handler) signedValue(exp time.Time, id string) string {
	e := strconv.FormatInt(exp.Unix(), 10) + "." + id
	m := hmac.New(sha256.New, h.mac)
	m.Write([]byte(e))
	return e + "." + hex.EncodeToString(m.Sum(nil))
}

// cookieSession checks the request's cookie: signed with this token's key, not expired. It
// returns the sign-in's id and expiry. Every replica with the same token accepts it.
func (h *Handler) cookieSession(r *http.Request) (id string, exp time.Time, ok bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return "", time.Time{}, false
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 || len(parts[1]) != 32 {
		return "", time.Time{}, false
	}
	unix, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || h.o.Now().After(time.Unix(unix, 0)) {
		return "", time.Time{}, false
	}
	exp = time.Unix(unix, 0)
	if !hmac.Equal([]byte(c.Value), []byte(h.signedValue(exp, parts[1]))) {
		return "", time.Time{}, false
	}
	return parts[1], exp, true
}

// signedIn tells whether the request's cookie is good and its sign-in was not ended by a
// sign-out (here, or with a Cluster on any replica). err: the store could not say.
func (h *Handler) signedIn(r *http.Request) (bool, error) {
	id, _, ok := h.cookieSession(r)
	if !ok || h.revoked.has(id, h.o.Now()) {
		return false, nil
	}
	if h.o.Cluster == nil {
		return true, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	v, err := h.o.Cluster.Value(ctx, revokedKey(id))
	if err != nil {
		return false, err
	}
	return v == nil, nil
}

func (h *Handler) auth(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, err := h.signedIn(r)
		if err != nil {
			h.log.Warn("console: checking the sign-in against the store failed", zap.Error(err))
			writeError(w, http.StatusServiceUnavailable, "the sign-in cannot be checked now: the store does not answer")
			return
		}
		if !ok {
			writeError(w, http.StatusUnauthorized, "sign in first")
			return
		}
		if r.Method != http.MethodGet && r.Header.Get(csrfHeader) != "1" {
			writeError(w, http.StatusForbidden, "missing the "+csrfHeader+" header")
			return
		}
		next(w, r)
	})
}

func (h *Handler) secure(r *http.Request) bool { return h.o.Secure || r.TLS != nil }

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(csrfHeader) != "1" {
		writeError(w, http.StatusForbidden, "missing the "+csrfHeader+" header")
		return
	}
	if h.limit.blocked(clientIP(r), h.o.Now()) {
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusTooManyRequests, "too many sign-in attempts: wait a minute")
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "want {\"token\": \"…\"}")
		return
	}
	given := sha256.Sum256([]byte(body.Token))
	want := sha256.Sum256([]byte(h.o.Token))
	if subtle.ConstantTimeCompare(given[:], want[:]) != 1 {
		h.limit.fail(clientIP(r), h.o.Now())
		h.log.Warn("console: wrong token", zap.String("remote", r.RemoteAddr))
		writeError(w, http.StatusUnauthorized, "wrong token")
		return
	}
	exp := h.o.Now().Add(cookieLife)
	var id [16]byte
	_, _ = rand.Read(id[:])
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: h.signedValue(exp, hex.EncodeToString(id[:])), Path: "/console/", Expires: exp,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.secure(r),
	})
	h.log.Info("console: signed in", zap.String("remote", r.RemoteAddr))
	writeJSON(w, map[string]bool{"signedIn": true})
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(csrfHeader) != "1" {
		writeError(w, http.StatusForbidden, "missing the "+csrfHeader+" header")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/console/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.secure(r)})
	// The cookie's sign-in ends for good: a copy of it is refused from now on, by every
	// replica with a Cluster.
	if id, exp, ok := h.cookieSession(r); ok {
		h.revoked.add(id, exp, h.o.Now())
		if h.o.Cluster != nil {
			ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
			err := h.o.Cluster.SetValue(ctx, revokedKey(id), []byte("1"), exp.Sub(h.o.Now())+time.Minute)
			cancel()
			if err != nil {
				h.log.Warn("console: sharing a sign-out with the other replicas failed", zap.Error(err))
				writeError(w, http.StatusServiceUnavailable, "signed out of this replica only: the store does not answer; sign out again")
				return
			}
		}
		h.log.Info("console: signed out", zap.String("remote", r.RemoteAddr))
	}
	writeJSON(w, map[string]bool{"signedIn": false})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// limiter allows n failed attempts per window per client (a fixed window): a good sign-in
// does not count, so that others behind the same address cannot lock the operator out by
// signing in.
type limiter struct {
	n      int
	window time.Duration
	mu     sync.Mutex
	seen   map[string]*attempts
}

type attempts struct {
	start time.Time
	count int
}

func newLimiter(n int, window time.Duration) *limiter {
	return &limiter{n: n, window: window, seen: map[string]*attempts{}}
}

// blocked tells whether client failed n times in its current window.
func (l *limiter) blocked(client string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.seen[client]
	return a != nil && now.Sub(a.start) < l.window && a.count >= l.n
}

// fail counts a failed attempt of client.
func (l *limiter) fail(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.seen) > 10000 {
		for k, a := range l.seen {
			if now.Sub(a.start) >= l.window {
				delete(l.seen, k)
			}
		}
	}
	a := l.seen[client]
	if a == nil || now.Sub(a.start) >= l.window {
		a = &attempts{start: now}
		l.seen[client] = a
	}
	a.count++
}

// revocations are the sign-ins ended by a sign-out in this process, until their cookies
// expire (at most maxRevocations, the oldest dropped first: they are only the operator's own).
//
// Lock order: mu is a leaf.
type revocations struct {
	mu    sync.Mutex
	until map[string]time.Time
}

const maxRevocations = 10000

func (v *revocations) add(id string, until, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.until == nil {
		v.until = map[string]time.Time{}
	}
	for k, u := range v.until {
		if now.After(u) {
			delete(v.until, k)
		}
	}
	for len(v.until) >= maxRevocations {
		var oldest string
		for k, u := range v.until {
			if oldest == "" || u.Before(v.until[oldest]) {
				oldest = k
			}
		}
		delete(v.until, oldest)
	}
	v.until[id] = until
}

func (v *revocations) has(id string, now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	u, ok := v.until[id]
	return ok && !now.After(u)
}
