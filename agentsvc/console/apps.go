package console

// MCP Apps in the transcript: a call whose result came with an app (tool_result's app) names
// it, and GET …/apps/{call} serves the app's document for a read-only view in the console: a
// sandboxed document (CSP sandbox, opaque origin) with the app's network allowances only. The
// event names the document by its hash (app.sha256); the bytes come from Options.AppDocument
// (the agent's resource cache, or the server read again), the same the widget is served.

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// CallApp is what the transcript says of a call's MCP App; the document is at AppURL.
type CallApp struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	URI    string          `json:"uri"`
	Input  json.RawMessage `json:"input,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	SHA256 string          `json:"sha256"` // names the document
}

// ErrAppGone is what an AppDocument returns when the document is no longer the one the event
// names (the server changed it): answered 410.
var ErrAppGone = errors.New("this view is no longer available")

// eventApp is tool_result's app as stored: HTML only in events written before the app
// carried a reference (sha256) instead of its document.
type eventApp struct {
	wire.App
	HTML string `json:"html"`
}

func callApp(a *eventApp) *CallApp {
	if a == nil || (a.SHA256 == "" && a.HTML == "") {
		return nil
	}
	return &CallApp{Server: a.Server, Tool: a.Tool, URI: a.URI, Input: a.Input, Result: a.Result, SHA256: a.SHA256}
}

var appOrigin = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)

// appPolicy is the app document's Content-Security-Policy: sandboxed (scripts only, an opaque
// origin: the console's cookie and API are out of its reach), no network but the origins its
// resource declared, framed only by the console.
func appPolicy(csp *wire.AppCSP) string {
	list := func(l []string, none string) string {
		var ok []string
		for _, o := range l {
			if appOrigin.MatchString(o) && len(ok) < 32 {
				ok = append(ok, o)
			}
		}
		if len(ok) == 0 {
			return none
		}
		return strings.Join(ok, " ")
	}
	if csp == nil {
		csp = &wire.AppCSP{}
	}
	res := list(csp.ResourceDomains, "")
	return strings.Join([]string{
		"sandbox allow-scripts",
		"default-src 'none'",
		strings.TrimSpace("script-src 'unsafe-inline' " + res),
		strings.TrimSpace("style-src 'unsafe-inline' " + res),
		strings.TrimSpace("img-src data: blob: " + res),
		strings.TrimSpace("font-src data: " + res),
		strings.TrimSpace("media-src data: blob: " + res),
		"connect-src " + list(csp.ConnectDomains, "'none'"),
		"frame-src " + list(csp.FrameDomains, "'none'"),
		"base-uri " + list(csp.BaseURIDomains, "'none'"),
		"form-action 'none'",
		"frame-ancestors 'self'",
	}, "; ")
}

// appDoc serves the document of call {call}'s app in conversation {id}.
func (h *Handler) appDoc(w http.ResponseWriter, r *http.Request) {
	_, evs, ok := h.transcriptOf(w, r)
	if !ok {
		return
	}
	call := r.PathValue("call")
	var app *eventApp
	for _, e := range evs {
		var ev struct {
			Type   string    `json:"type"`
			CallID string    `json:"callId"`
			App    *eventApp `json:"app"`
		}
		if json.Unmarshal(e.Data, &ev) == nil && ev.Type == wire.EventToolResult && ev.CallID == call && ev.App != nil {
			app = ev.App
		}
	}
	if callApp(app) == nil {
		writeError(w, http.StatusNotFound, "no app for that call")
		return
	}
	html := app.HTML
	if html == "" {
		if h.o.AppDocument == nil {
			writeError(w, http.StatusNotFound, "this view is no longer available: this agent has no server-side MCP servers")
			return
		}
		var err error
		html, err = h.o.AppDocument(r.Context(), app.Server, app.URI, app.SHA256)
		if errors.Is(err, ErrAppGone) {
			writeError(w, http.StatusGone, "this view is no longer available: "+err.Error())
			return
		}
		if err != nil {
			h.log.Info("an app's document could not be served", zap.String("server", app.Server), zap.String("uri", app.URI), zap.Error(err))
			writeError(w, http.StatusNotFound, "this view is no longer available: its server cannot serve it now")
			return
		}
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", appPolicy(app.CSP))
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Cache-Control", "private, no-store")
	_, _ = w.Write([]byte(html))
}
