package console

// MCP Apps in the transcript: a call whose result came with an app (tool_result's app) names
// it, and GET …/apps/{call} serves the app's document for a read-only view in the console: a
// sandboxed document (CSP sandbox, opaque origin) with the app's network allowances only.

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// CallApp is what the transcript says of a call's MCP App; the document is at AppURL.
type CallApp struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	URI    string          `json:"uri"`
	Input  json.RawMessage `json:"input,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Bytes  int             `json:"bytes"` // the document's size
}

func callApp(a *wire.App) *CallApp {
	if a == nil || a.HTML == "" {
		return nil
	}
	return &CallApp{Server: a.Server, Tool: a.Tool, URI: a.URI, Input: a.Input, Result: a.Result, Bytes: len(a.HTML)}
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
	var app *wire.App
	for _, e := range evs {
		var ev struct {
			Type   string    `json:"type"`
			CallID string    `json:"callId"`
			App    *wire.App `json:"app"`
		}
		if json.Unmarshal(e.Data, &ev) == nil && ev.Type == wire.EventToolResult && ev.CallID == call && ev.App != nil {
			app = ev.App
		}
	}
	if app == nil || app.HTML == "" {
		writeError(w, http.StatusNotFound, "no app for that call")
		return
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", appPolicy(app.CSP))
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	_, _ = w.Write([]byte(app.HTML))
}
