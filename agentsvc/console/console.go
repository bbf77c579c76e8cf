// Package console is the operator console at /console: the open tabs and running turns live,
// the stored conversations (search, transcript, export, delete) and health charts drawn from
// the counters of /metrics, behind a sign-in with the console token.
//
// It reads the service through small interfaces (Options): the tabs, a Feed of events, the
// session store and a Prometheus Gatherer, so it works on every store and knows nothing of
// the socket's internals.
package console

import (
	"crypto/hmac"
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
}

// Handler serves /console and /console/api/….
type Handler struct {
	o      Options
	mux    *http.ServeMux
	mac    []byte // key of the sign-in cookies, derived from the token
	limit  *limiter
	log    *zap.Logger
	owners owners
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
	sum := sha256.Sum256([]byte("byomcp console cookie\x00" + o.Token))
	h := &Handler{o: o, mux: http.NewServeMux(), mac: sum[:], limit: newLimiter(5, time.Minute), log: o.Logger}
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	h.mux.Handle("GET /console/{$}", files2(files, "/"))
	h.mux.Handle("GET /console/static/", http.StripPrefix("/console/static", files))
	h.mux.HandleFunc("POST /console/api/signin", h.signIn)
	h.mux.HandleFunc("POST /console/api/signout", h.signOut)
	h.mux.Handle("GET /console/api/me", h.auth(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]bool{"signedIn": true}) }))
	h.mux.Handle("GET /console/api/tabs", h.auth(h.tabs))
	h.mux.Handle("GET /console/api/live", h.auth(h.live))
	h.mux.Handle("GET /console/api/conversations", h.auth(h.list))
	h.mux.Handle("GET /console/api/conversations/{id}", h.auth(h.transcript))
	h.mux.Handle("GET /console/api/conversations/{id}/export", h.auth(h.export))
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

// signedValue is the cookie's value for an expiry: "unix.hmac".
func (h *Handler) signedValue(exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	m := hmac.New(sha256.New, h.mac)
	m.Write([]byte(e))
	return e + "." + hex.EncodeToString(m.Sum(nil))
}

// signedIn checks the request's cookie: signed with this token's key, not expired. Every
// replica with the same token accepts it.
func (h *Handler) signedIn(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	e, _, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	unix, err := strconv.ParseInt(e, 10, 64)
	if err != nil || h.o.Now().After(time.Unix(unix, 0)) {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(h.signedValue(time.Unix(unix, 0))))
}

func (h *Handler) auth(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.signedIn(r) {
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
	if !h.limit.allow(clientIP(r), h.o.Now()) {
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
		h.log.Warn("console: wrong token", zap.String("remote", r.RemoteAddr))
		writeError(w, http.StatusUnauthorized, "wrong token")
		return
	}
	exp := h.o.Now().Add(cookieLife)
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: h.signedValue(exp), Path: "/console/", Expires: exp,
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
	writeJSON(w, map[string]bool{"signedIn": false})
}

// tabs serves GET /console/api/tabs: the open tabs of this replica and, with a Cluster, of
// every replica (from their last snapshots), each marked with its replica. The header
// X-Byomcp-Tabs-Hidden counts the tabs of other replicas beyond their snapshots' bound, and
// X-Byomcp-Cluster says "unavailable" when the other replicas could not be read.
func (h *Handler) tabs(w http.ResponseWriter, r *http.Request) {
	tabs := h.o.Tabs()
	if tabs == nil {
		tabs = []Tab{}
	}
	for i := range tabs {
		tabs[i].Replica = h.o.Replica
	}
	remote, hidden, err := h.remoteTabs(r.Context())
	if err != nil {
		h.log.Warn("console: reading the other replicas' tabs failed", zap.Error(err))
		w.Header().Set("X-Byomcp-Cluster", "unavailable")
	}
	tabs = append(tabs, remote...)
	for i := range tabs {
		tabs[i].Site = h.o.SiteOf(tabs[i].Origin)
	}
	if hidden > 0 {
		w.Header().Set("X-Byomcp-Tabs-Hidden", strconv.Itoa(hidden))
	}
	writeJSON(w, tabs)
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

// limiter allows n attempts per window per client (a fixed window).
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

func (l *limiter) allow(client string, now time.Time) bool {
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
	if a.count >= l.n {
		return false
	}
	a.count++
	return true
}
