package jsclient

// The frame an MCP App runs in (mcp-app.js): /byomcp/app-frame, served from the agent's origin
// with its own Content-Security-Policy header, so that neither the host page's policy nor its
// Trusted Types stand between the app and its document, and the app's sandbox does not depend
// on the page. The widget frames it with sandbox="allow-scripts"; its policy sandboxes it too
// (an opaque origin however it is opened). Its one script waits for the app's document from the
// window that framed it and writes it in place.

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// appFrameHTML is the frame's document before the app's: it asks its parent for the app
// (byomcp/app-frame-ready), takes the first byomcp/app-html from it, and writes it, which also
// drops this listener (document.open erases the window's listeners).
const appFrameHTML = `<!doctype html><meta charset="utf-8"><title>app</title><script>(function(){` +
	`function take(e){var d=e.data;if(e.source!==parent||!d||d.type!=='byomcp/app-html'||typeof d.html!=='string')return;` +
	`removeEventListener('message',take);document.open();document.write(d.html);document.close();}` +
	`addEventListener('message',take);parent.postMessage({type:'byomcp/app-frame-ready'},'*');})()</script>`

// appCSP is what an app's resource declares (SEP-1865's McpUiResourceCsp).
type appCSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	ResourceDomains []string `json:"resourceDomains"`
	FrameDomains    []string `json:"frameDomains"`
	BaseURIDomains  []string `json:"baseUriDomains"`
}

// maxAppCSP bounds the csp query parameter and each of its lists.
const (
	maxAppCSP        = 8 << 10
	maxAppCSPOrigins = 32
)

var appOriginRE = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)

// AppFramePolicy is the app frame's Content-Security-Policy for the csp an app declares
// (JSON, may be empty): sandboxed with scripts only, no network but the declared origins
// (entries that are not origins are dropped), inline script and style allowed.
func AppFramePolicy(cspJSON string) string {
	var c appCSP
	if len(cspJSON) <= maxAppCSP {
		_ = json.Unmarshal([]byte(cspJSON), &c)
	}
	list := func(l []string, none string) string {
		var ok []string
		for _, o := range l {
			if appOriginRE.MatchString(o) && len(ok) < maxAppCSPOrigins {
				ok = append(ok, o)
			}
		}
		if len(ok) == 0 {
			return none
		}
		return strings.Join(ok, " ")
	}
	res := list(c.ResourceDomains, "")
	with := func(head string) string { return strings.TrimSpace(head + " " + res) }
	return strings.Join([]string{
		"sandbox allow-scripts",
		"default-src 'none'",
		with("script-src 'unsafe-inline'"),
		with("style-src 'unsafe-inline'"),
		with("img-src data: blob:"),
		with("font-src data:"),
		with("media-src data: blob:"),
		"connect-src " + list(c.ConnectDomains, "'none'"),
		"frame-src " + list(c.FrameDomains, "'none'"),
		"base-uri " + list(c.BaseURIDomains, "'none'"),
		"form-action 'none'",
	}, "; ")
}

// AppFrameHandler serves GET /byomcp/app-frame?csp=<the app's csp as JSON>.
func AppFrameHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", AppFramePolicy(r.URL.Query().Get("csp")))
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write([]byte(appFrameHTML))
	})
}
