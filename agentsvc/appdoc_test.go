package agentsvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

func sha256Of(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// maxAppEvent bounds a tool_result event with an app, as stored: the app is a reference to its
// document, whatever the document's size.
const maxAppEvent = 8 << 10

// appDocServer serves the agent's routes for an app's document, as cmd/byomcp does.
func appDocServer(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET /byomcp/apps/{server}/{sha256}", s.AppDocumentHandler())
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs
}

// getAppDoc GETs an app's document from origin ("" for no Origin header; "Sec-Fetch-Site: …"
// for that header and no Origin, as a browser's GET).
func getAppDoc(t *testing.T, hs *httptest.Server, origin, server, sha, uri string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", hs.URL+wire.AppDocumentPath(server, sha)+"?uri="+url.QueryEscape(uri), nil)
	if err != nil {
		t.Fatal(err)
	}
	if site, ok := strings.CutPrefix(origin, "Sec-Fetch-Site: "); ok {
		req.Header.Set("Sec-Fetch-Site", site)
	} else if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// TestAppEventIsAReference: the tool_result of a call with an MCP App carries the app's
// document by reference (its SHA-256), not the document: the event the store keeps (and a
// resume sends again) is small whatever the document's size, and the agent serves the
// document at the reference, to the page's origin, sandboxed, cacheable.
func TestAppEventIsAReference(t *testing.T) {
	mgr, _ := appServers(t)
	model, _ := openAIModel(t, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c_show", Name: "shop__show_car", Args: `{"id":"7"}`}}},
		llmtest.Step{Text: "here it is"},
	))
	ts := newTestServer(t, model, func(c *Config) { c.ServerTools = mgr })
	page := newFakePage(t, ts, testOrigin)
	sess := page.session(wire.SessionParams{})
	if _, err := page.chat("show me car 7"); err != nil {
		t.Fatal(err)
	}
	result := turnResult(page, "c_show")
	if result == nil || result.App == nil || result.App.SHA256 != sha256Of(shopAppHTML) {
		t.Fatalf("tool_result = %+v, want an app named by its document's SHA-256", result)
	}

	// The event as stored (and sent again on a resume).
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	evs, err := ts.store.EventsAfter(ctx, sess.SessionID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var stored json.RawMessage
	for _, e := range evs {
		var ev struct {
			Type   string `json:"type"`
			CallID string `json:"callId"`
		}
		if json.Unmarshal(e.Data, &ev) == nil && ev.Type == wire.EventToolResult && ev.CallID == "c_show" {
			stored = e.Data
		}
	}
	if stored == nil {
		t.Fatal("no stored tool_result for c_show")
	}
	var fields struct {
		App map[string]json.RawMessage `json:"app"`
	}
	if err := json.Unmarshal(stored, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields.App["html"]; ok {
		t.Errorf("the stored tool_result's app has an html field")
	}
	if len(stored) > maxAppEvent || strings.Contains(string(stored), "car card") {
		t.Errorf("the stored tool_result is %d bytes, want at most %d and without the document", len(stored), maxAppEvent)
	}
	t.Logf("tool_result with the app of a %d-byte document: %d bytes", len(shopAppHTML), len(stored))

	hs := appDocServer(t, ts.Server)
	res, body := getAppDoc(t, hs, testOrigin, "shop", result.App.SHA256, result.App.URI)
	if res.StatusCode != 200 || body != shopAppHTML {
		t.Fatalf("the document: %d, %d bytes; want 200 and the app's %d bytes", res.StatusCode, len(body), len(shopAppHTML))
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"sandbox allow-scripts", "default-src 'none'", "connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "allow-same-origin") {
		t.Errorf("CSP %q gives the app the agent's origin", csp)
	}
	for h, want := range map[string]string{
		"Access-Control-Allow-Origin": testOrigin,
		"Content-Type":                "text/html; charset=utf-8",
		"X-Content-Type-Options":      "nosniff",
		"Referrer-Policy":             "no-referrer",
		"Cache-Control":               "public, max-age=31536000, immutable",
		"Vary":                        "Origin",
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// TestAppDocumentRefused: the agent serves an app's document only at its hash, of a resource
// one of the server's tools declares, to an allowed origin whose site uses the server.
func TestAppDocumentRefused(t *testing.T) {
	mgr, _ := appServers(t)
	path := filepath.Join(t.TempDir(), "sites.json")
	const otherSite = "http://localhost:4000"
	if err := os.WriteFile(path, []byte(`{"sites": [{"name": "shop", "origins": ["`+testOrigin+`"], "mcpServers": ["shop"]},
		{"name": "weather", "origins": ["`+otherSite+`"], "mcpServers": ["other"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sites.Open(path, sites.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, &scriptModel{}, func(c *Config) { c.Sites = reg.Lookup; c.ServerTools = mgr })
	hs := appDocServer(t, ts.Server)
	sha, uri := sha256Of(shopAppHTML), "ui://shop/card.html"
	if res, body := getAppDoc(t, hs, testOrigin, "shop", sha, uri); res.StatusCode != 200 || body != shopAppHTML {
		t.Fatalf("the shop's site: %d %q, want 200 and the document", res.StatusCode, body[:min(len(body), 80)])
	}
	// A page of the agent's own origin (a browser sends no Origin with a same-origin GET).
	if res, body := getAppDoc(t, hs, "Sec-Fetch-Site: same-origin", "shop", sha, uri); res.StatusCode != 200 || body != shopAppHTML || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("the agent's own page: %d %q, want 200 and the document", res.StatusCode, body[:min(len(body), 80)])
	}
	for _, tc := range []struct {
		name, origin, server, sha, uri string
		code                           int
		says                           string
	}{
		{"a wrong hash", testOrigin, "shop", sha256Of("something else"), uri, 410, "no longer available"},
		{"not a hash", testOrigin, "shop", "abc", uri, 404, "SHA-256"},
		{"an upper-case hash", testOrigin, "shop", strings.ToUpper(sha), uri, 404, "SHA-256"},
		{"a site that does not use the server", otherSite, "shop", sha, uri, 403, `does not use the MCP server "shop"`},
		{"an origin that may not connect", "https://evil.example", "shop", sha, uri, 403, "allowed origin"},
		{"no Origin", "", "shop", sha, uri, 403, "allowed origin"},
		{"no Origin, from another site", "Sec-Fetch-Site: cross-site", "shop", sha, uri, 403, "allowed origin"},
		{"a resource no tool declares", testOrigin, "shop", sha, "ui://shop/other.html", 404, "no longer available"},
		{"not a ui:// resource", testOrigin, "shop", sha, "file:///etc/passwd", 400, "ui://"},
		{"an unknown server", testOrigin, "nope", sha, uri, 403, "does not use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := getAppDoc(t, hs, tc.origin, tc.server, tc.sha, tc.uri)
			if res.StatusCode != tc.code || !strings.Contains(body, tc.says) || strings.Contains(body, "car card") {
				t.Errorf("%d %q, want %d saying %q", res.StatusCode, body[:min(len(body), 200)], tc.code, tc.says)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("a refusal is cacheable: Cache-Control %q", got)
			}
		})
	}
}

// TestAppDocumentCacheMiss: another replica, or the agent after a restart, has not read the
// app's resource: it reads it from the server again and serves it while its hash matches;
// once the server changed it, the old reference is gone (410), not served another document.
func TestAppDocumentCacheMiss(t *testing.T) {
	cfg, runs, changed := appServerConfig(t)
	reads := runs["resources/read"]
	first := startAppServers(t, cfg)
	if _, err := first.AppResource(t.Context(), "shop", "ui://shop/card.html"); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads, want 1", n)
	}
	sha := sha256Of(shopAppHTML)

	// The same process: from the cache.
	hs1 := appDocServer(t, newTestServer(t, &scriptModel{}, func(c *Config) { c.ServerTools = first }).Server)
	if res, body := getAppDoc(t, hs1, testOrigin, "shop", sha, "ui://shop/card.html"); res.StatusCode != 200 || body != shopAppHTML {
		t.Fatalf("from the cache: %d, %d bytes", res.StatusCode, len(body))
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads, want 1 (served from the cache)", n)
	}

	// Another replica: read again, then cached.
	second := startAppServers(t, cfg)
	hs2 := appDocServer(t, newTestServer(t, &scriptModel{}, func(c *Config) { c.ServerTools = second }).Server)
	for range 2 {
		if res, body := getAppDoc(t, hs2, testOrigin, "shop", sha, "ui://shop/card.html"); res.StatusCode != 200 || body != shopAppHTML {
			t.Fatalf("another replica: %d, %d bytes; want 200 and the document", res.StatusCode, len(body))
		}
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads, want 2 (the second replica read it once)", n)
	}

	// The server changed its app: a third replica reads the new one and refuses the old hash.
	changed.Store(true)
	third := startAppServers(t, cfg)
	hs3 := appDocServer(t, newTestServer(t, &scriptModel{}, func(c *Config) { c.ServerTools = third }).Server)
	res, body := getAppDoc(t, hs3, testOrigin, "shop", sha, "ui://shop/card.html")
	if res.StatusCode != 410 || !strings.Contains(body, "no longer available") || strings.Contains(body, "car card") {
		t.Errorf("a changed document: %d %q, want 410", res.StatusCode, body)
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("%d reads, want 3", n)
	}
	if res, body := getAppDoc(t, hs3, testOrigin, "shop", sha256Of(shopAppChanged), "ui://shop/card.html"); res.StatusCode != 200 || body != shopAppChanged {
		t.Errorf("the new document at its own hash: %d %q", res.StatusCode, body)
	}
}
