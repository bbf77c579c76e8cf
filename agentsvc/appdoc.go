package agentsvc

// The documents of MCP Apps, by reference: tool_result's app names its document by server and
// SHA-256, and the widget (mcp-app.js) fetches it from GET /byomcp/apps/{server}/{sha256}?uri=…
// (CORS, from the page's origin) and hands it to its sandboxed app frame. The event stays
// small in the store, on a resume and in a session's tail, whatever the document's size.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/jsclient"
)

// appDocuments is what the server tools do to serve an app's document (the Manager does).
type appDocuments interface {
	AppDocument(ctx context.Context, audience, server, uri, sha string) (*mcpservers.AppResource, error)
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// AppDocument returns the document of server's app resource uri whose SHA-256 is sha (hex),
// for the console's read-only view and AppDocumentHandler (mcpservers.ErrAppGone when its
// server changed it).
func (s *Server) AppDocument(ctx context.Context, server, uri, sha string) (*mcpservers.AppResource, error) {
	docs, ok := s.cfg.ServerTools.(appDocuments)
	if !ok {
		return nil, errors.New("agent: no server-side MCP servers")
	}
	if !sha256Hex.MatchString(sha) {
		return nil, errors.New("agent: not a SHA-256 in hex")
	}
	return docs.AppDocument(ctx, mcpservers.AudienceWeb, server, uri, sha)
}

// AppDocumentHandler serves GET /byomcp/apps/{server}/{sha256}?uri=<ui://…>: the document of an
// app the agent showed, to a page whose origin may connect (the allow-list, sites.json) and
// whose site uses that server (sites.json mcpServers), as agent/appCall decides; a page of the
// agent's own origin (the demo), which sends no Origin with a GET, is known by Sec-Fetch-Site:
// same-origin. It comes from the resource cache, or is read from the server again and served
// only while its hash still matches (410 otherwise). The response carries the app frame's CSP (sandbox allow-scripts, the
// resource's declared origins only), so that the document opened on its own is sandboxed too;
// it is immutable (content-addressed) and varies by Origin.
func (s *Server) AppDocumentHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(code int, msg string) {
			hd := w.Header()
			hd.Set("Content-Type", "text/plain; charset=utf-8")
			hd.Set("X-Content-Type-Options", "nosniff")
			hd.Set("Cache-Control", "no-store")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(msg + "\n"))
		}
		origin := r.Header.Get("Origin")
		w.Header().Add("Vary", "Origin")
		if !s.hostAllowed(r) {
			fail(http.StatusForbidden, "forbidden: this Host is not the agent's")
			return
		}
		sameOrigin := origin == "" && r.Header.Get("Sec-Fetch-Site") == "same-origin"
		if sameOrigin {
			// A page of the agent's own origin (the demo): a browser sends no Origin with a
			// same-origin GET, and Sec-Fetch-Site is set by the browser only.
			if own := s.ownOrigins(r); len(own) > 0 {
				origin = own[0]
			}
		} else if origin == "" || !s.originAllowed(origin, r) {
			fail(http.StatusForbidden, "forbidden: an app's document is served to the pages of an allowed origin only (a CORS request with an Origin header)")
			return
		} else {
			w.Header().Set("Access-Control-Allow-Origin", origin)
		}
		server, sha, uri := r.PathValue("server"), r.PathValue("sha256"), r.URL.Query().Get("uri")
		if !sha256Hex.MatchString(sha) {
			fail(http.StatusNotFound, "not found: the document's name is not a SHA-256 in lower-case hex")
			return
		}
		if !strings.HasPrefix(uri, "ui://") || len(uri) > 2048 {
			fail(http.StatusBadRequest, "bad request: uri must be the app's ui:// resource")
			return
		}
		if !s.site(origin).AllowsServer(server + "__") {
			fail(http.StatusForbidden, "forbidden: this site does not use the MCP server "+strconv.Quote(server))
			return
		}
		doc, err := s.AppDocument(r.Context(), server, uri, sha)
		switch {
		case err == nil:
		case errors.Is(err, mcpservers.ErrAppGone):
			fail(http.StatusGone, "gone: this view is no longer available (its server changed the app)")
			return
		default:
			s.log.Info("an app's document was not served", zap.String("server", server), zap.String("uri", uri), zap.Error(err))
			fail(http.StatusNotFound, "not found: this view is no longer available (no such app on this agent, or its server is unreachable)")
			return
		}
		csp := "{}"
		if doc.CSP != nil {
			if b, err := json.Marshal(doc.CSP); err == nil {
				csp = string(b)
			}
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", jsclient.AppFramePolicy(csp))
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
		hd.Set("ETag", `"`+sha+`"`)
		_, _ = w.Write([]byte(doc.HTML))
	})
}
