package agentsvc

// Who may connect: the server's own origins, the Origin allow-list, the Host check against
// DNS rebinding, and GET /v1/origin-check.

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

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
			res.Message = "This site's origin is not allowed by the agent: add it with --allowed-origins (env BYOMCP_ALLOWED_ORIGINS), e.g. --allowed-origins " + exampleOrigin(origin) +
				`, or to its site's "origins" in sites.json (--sites; SIGHUP reloads it), then reload the page.`
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_ = json.NewEncoder(w).Encode(res)
	})
}

// exampleOrigin is origin as an --allowed-origins value, or a sample origin when it is not
// one (it is echoed into a sentence: keep it short and plain).
func exampleOrigin(origin string) string {
	if _, err := parseOriginPattern(origin); err != nil || len(origin) > 200 {
		return "https://your-site.example"
	}
	return origin
}

// CheckOrigin says whether NewServer takes p as an allowed origin (exact, or with the port
// "*"), so that a command checks its configuration before it opens anything.
func CheckOrigin(p string) error {
	_, err := parseOriginPattern(p)
	return err
}

type originPattern struct {
	scheme, host, port string // port "*" matches any (and none)
}

func parseOriginPattern(p string) (originPattern, error) {
	if p == "*" {
		return originPattern{}, errors.New(`agentsvc: allowed origin "*" is not supported: list exact origins`)
	}
	scheme, rest, ok := strings.Cut(p, "://")
	if h, slash := strings.CutSuffix(rest, "/"); slash && h != "" && !strings.ContainsAny(h, "/?#") {
		rest = h // https://shop.example/ as a browser's address bar shows it: the origin is without the /
	}
	if ok && strings.IndexAny(rest, "/?#") > 0 {
		return originPattern{}, errors.New("agentsvc: allowed origin " + p + " has a path, query or fragment: an origin is only scheme://host[:port]")
	}
	if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#") {
		return originPattern{}, errors.New("agentsvc: allowed origin " + p + " must look like https://host[:port]")
	}
	host, port := rest, ""
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.HasSuffix(rest, "]") {
		host, port = rest[:i], rest[i+1:]
	}
	// Only the port may be a wildcard: a pattern whose host has one, or whose port is
	// neither digits nor "*", could never match a browser's Origin.
	if !validOriginHost(host) || (port != "*" && !validPort(port, rest)) {
		return originPattern{}, errors.New("agentsvc: allowed origin " + p + " must look like https://host[:port] (only the port may be *)")
	}
	return originPattern{scheme: scheme, host: strings.ToLower(host), port: port}, nil
}

// validOriginHost reports whether host (an IPv6 address in brackets, or a name or IPv4
// address) could be the host of an Origin header.
func validOriginHost(host string) bool {
	if strings.HasPrefix(host, "[") {
		_, err := netip.ParseAddr(strings.Trim(host, "[]"))
		return strings.HasSuffix(host, "]") && err == nil
	}
	if host == "" {
		return false
	}
	for _, c := range host {
		if !(c == '-' || c == '.' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c > 0x7f) {
			return false
		}
	}
	return true
}

// validPort reports whether port, of rest (host[:port]), is empty where rest has no colon
// after the host, or a port number.
func validPort(port, rest string) bool {
	if port == "" {
		return !strings.HasSuffix(rest, ":")
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n <= 65535 && strings.Trim(port, "0123456789") == ""
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
