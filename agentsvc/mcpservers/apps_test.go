package mcpservers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byomcp/byomcp/agentsvc/tools"
)

const appURI = "ui://shop/card.html"

// appServer is a go-sdk MCP server with an MCP App (SEP-1865): a tool with
// _meta.ui.resourceUri, a tool only its app may call, and the ui:// resource.
type appServer struct {
	srv   *mcp.Server
	reads atomic.Int32 // resources/read received
	html  atomic.Value // string: the resource's text

	mu       sync.Mutex
	caps     []*mcp.ClientCapabilities // the client's capabilities, per tools/list
	sessions []*mcp.ServerSession
}

func newAppServer(mimeType string) *appServer {
	a := &appServer{}
	a.html.Store("<!doctype html><p>card v1</p>")
	a.srv = mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	// The client's capabilities as the server knows them for a request (from initialize, or
	// from the request itself in the stateless 2026-07-28 revision).
	a.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.ListToolsRequest); ok {
				a.mu.Lock()
				a.caps = append(a.caps, r.ClientCapabilities())
				a.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, StructuredContent: map[string]any{"said": s}}
	}
	a.srv.AddTool(&mcp.Tool{Name: "show_car", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`),
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": appURI}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("a red car"), nil
		})
	a.srv.AddTool(&mcp.Tool{Name: "refresh_price", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("$20,000"), nil })
	a.srv.AddTool(&mcp.Tool{Name: "model_only", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"model"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("for the model"), nil
		})
	a.srv.AddResource(&mcp.Resource{URI: appURI, Name: "card", MIMEType: mimeType},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			a.reads.Add(1)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: appURI, MIMEType: mimeType, Text: a.html.Load().(string),
				Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true, "csp": map[string]any{
					"connectDomains":  []any{"https://api.example.com", "https://x.example.com; script-src *", "'unsafe-inline'"},
					"resourceDomains": []any{"https://*.cdn.example.com"},
				}}}}}}, nil
		})
	return a
}

func (a *appServer) config(name string) ServerConfig {
	return ServerConfig{Name: name, Transport: "memory", Expose: []string{AudienceWeb, AudienceCLI}, transport: func() (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := a.srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.sessions = append(a.sessions, ss)
		a.mu.Unlock()
		return ct, nil
	}}
}

func (a *appServer) dropSessions() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ss := range a.sessions {
		ss.Close()
	}
	a.sessions = nil
}

func startApps(t *testing.T, servers ...ServerConfig) *Manager {
	t.Helper()
	m := Start(t.Context(), &Config{Servers: servers}, Options{})
	t.Cleanup(m.Close)
	if err := m.WaitReady(t.Context()); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	synctest.Wait()
	return m
}

// TestAppsExtensionAdvertised: the server sees io.modelcontextprotocol/ui with the one mime
// type the agent renders in the client's capabilities (SEP-1865, "Client capabilities").
func TestAppsExtensionAdvertised(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAppServer(AppMIMEType)
		startApps(t, a.config("shop"))
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.caps) != 1 || a.caps[0] == nil {
			t.Fatalf("capabilities seen by the server: %v, want one tools/list's", a.caps)
		}
		ext, ok := a.caps[0].Extensions[AppsExtension].(map[string]any)
		if !ok {
			t.Fatalf("extensions = %v, want %q", a.caps[0].Extensions, AppsExtension)
		}
		mimes, _ := ext["mimeTypes"].([]any)
		if len(mimes) != 1 || mimes[0] != AppMIMEType {
			t.Errorf("mimeTypes = %v, want [%q]", ext["mimeTypes"], AppMIMEType)
		}
	})
}

// TestAppVisibility: a tool with visibility ["app"] is not offered to the model nor callable
// by it; its server's app calls it; an app cannot call a model-only tool nor another
// server's tool.
func TestAppVisibility(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newAppServer(AppMIMEType), newAppServer(AppMIMEType)
		m := startApps(t, a.config("shop"), b.config("other"))
		var names []string
		for _, d := range m.ToolDefs(AudienceWeb) {
			names = append(names, d.Name)
		}
		got := strings.Join(names, ",")
		if strings.Contains(got, "refresh_price") || !strings.Contains(got, "shop__show_car") || !strings.Contains(got, "shop__model_only") {
			t.Errorf("ToolDefs = %s, want show_car and model_only but not the app-only refresh_price", got)
		}
		if _, err := m.Call(t.Context(), AudienceWeb, "shop__refresh_price", nil); !errors.Is(err, ErrNotExposed) {
			t.Errorf("model's Call of an app-only tool: err = %v, want ErrNotExposed", err)
		}
		res, err := m.CallForApp(t.Context(), AudienceWeb, "shop", "refresh_price", json.RawMessage(`{}`))
		if err != nil || textOf(res) != "$20,000" {
			t.Errorf("CallForApp(refresh_price) = %v, %v; want $20,000", textOf(res), err)
		}
		if _, err := m.CallForApp(t.Context(), AudienceWeb, "shop", "model_only", nil); !errors.Is(err, ErrNotExposed) {
			t.Errorf("CallForApp(model_only): err = %v, want ErrNotExposed", err)
		}
		if _, err := m.CallForApp(t.Context(), AudienceWeb, "shop", "nope", nil); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("CallForApp(unknown): err = %v, want ErrUnknownTool", err)
		}
		if _, err := m.CallForApp(t.Context(), AudienceWeb, "shop", "other__refresh_price", nil); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("CallForApp(another server's tool by its model name): err = %v, want ErrUnknownTool", err)
		}
		if _, err := m.CallForApp(t.Context(), AudienceWeb, "shop", "show_car", json.RawMessage(`{"id":3}`)); !errors.Is(err, ErrInvalidArguments) {
			t.Errorf("CallForApp with arguments off the schema: err = %v, want ErrInvalidArguments", err)
		}
	})
}

// TestAppResourceCache: a resource is read once per server and URI, read again after the
// server says its resources changed (list_changed, or resources/updated of the resource the
// agent subscribed to), and after a reconnect.
func TestAppResourceCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAppServer(AppMIMEType)
		m := startApps(t, a.config("shop"))
		for range 3 {
			r, err := m.AppResource(t.Context(), "shop", appURI)
			if err != nil {
				t.Fatalf("AppResource: %v", err)
			}
			if r.HTML != "<!doctype html><p>card v1</p>" {
				t.Fatalf("HTML = %q", r.HTML)
			}
		}
		if n := a.reads.Load(); n != 1 {
			t.Errorf("resources/read sent %d times for 3 AppResource, want 1", n)
		}
		// The server changes its resources: resources/list_changed drops the cache.
		a.html.Store("<!doctype html><p>card v2</p>")
		a.srv.AddResource(&mcp.Resource{URI: "ui://shop/other.html", Name: "other", MIMEType: AppMIMEType},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return nil, errors.New("unused")
			})
		time.Sleep(time.Second) // the server's debounce of list_changed, on the fake clock
		synctest.Wait()
		r, err := m.AppResource(t.Context(), "shop", appURI)
		if err != nil || r.HTML != "<!doctype html><p>card v2</p>" || a.reads.Load() != 2 {
			t.Errorf("after list_changed: %v, %v, %d reads; want v2 read again", r, err, a.reads.Load())
		}
		// The server says the resource changed (resources/subscribe, then
		// notifications/resources/updated): the cache is dropped.
		a.html.Store("<!doctype html><p>card v2b</p>")
		if err := a.srv.ResourceUpdated(t.Context(), &mcp.ResourceUpdatedNotificationParams{URI: appURI}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		r, err = m.AppResource(t.Context(), "shop", appURI)
		if err != nil || r.HTML != "<!doctype html><p>card v2b</p>" || a.reads.Load() != 3 {
			t.Errorf("after resources/updated: %v, %v, %d reads; want v2b read again", r, err, a.reads.Load())
		}
		// A reconnect drops it too.
		a.html.Store("<!doctype html><p>card v3</p>")
		a.dropSessions()
		synctest.Wait()
		time.Sleep(DefaultInitialBackoff) // the backoff, on the bubble's fake clock
		synctest.Wait()
		if st := statusOf(t, m, "shop"); st.State != StateReady {
			t.Fatalf("after the backoff: %+v, want ready", st)
		}
		r, err = m.AppResource(t.Context(), "shop", appURI)
		if err != nil || r.HTML != "<!doctype html><p>card v3</p>" || a.reads.Load() != 4 {
			t.Errorf("after a reconnect: %v, %v, %d reads; want v3 read again", r, err, a.reads.Load())
		}
		// The CSP keeps origins only.
		if r.CSP == nil || strings.Join(r.CSP.ConnectDomains, " ") != "https://api.example.com" ||
			strings.Join(r.CSP.ResourceDomains, " ") != "https://*.cdn.example.com" {
			t.Errorf("CSP = %+v, want only the well-formed origins", r.CSP)
		}
		if r.PrefersBorder == nil || !*r.PrefersBorder {
			t.Errorf("PrefersBorder = %v, want true", r.PrefersBorder)
		}
	})
}

// TestAppResourceRefused: a resource of another mime type, or over MaxAppResource, is not an
// app; the tool's result still reaches the model, without an app.
func TestAppResourceRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plain := newAppServer("text/html")
		big := newAppServer(AppMIMEType)
		big.html.Store("<!doctype html>" + strings.Repeat("x", MaxAppResource))
		m := startApps(t, plain.config("plain"), big.config("big"))
		for _, server := range []string{"plain", "big"} {
			if _, err := m.AppResource(t.Context(), server, appURI); !errors.Is(err, ErrNoApp) {
				t.Errorf("%s: err = %v, want ErrNoApp", server, err)
			}
			out := CallToolWithApp(t.Context(), m, AudienceWeb, server+"__show_car", json.RawMessage(`{"id":"7"}`), 0, nil)
			if out.Kind != tools.OK || out.App != nil || !strings.Contains(out.Text, "a red car") {
				t.Errorf("%s: outcome = %+v, want the text without an app", server, out)
			}
		}
	})
}

// TestCallToolWithApp: a tool with a ui:// resource answers with its app: the resource, the
// call's input and the server's whole result.
func TestCallToolWithApp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAppServer(AppMIMEType)
		m := startApps(t, a.config("shop"))
		out := CallToolWithApp(t.Context(), m, AudienceWeb, "shop__show_car", json.RawMessage(`{"id":"7"}`), 0, nil)
		if out.Kind != tools.OK || out.App == nil {
			t.Fatalf("outcome = %+v, want OK with an app", out)
		}
		app := out.App
		if app.Server != "shop" || app.Tool != "show_car" || app.URI != appURI || app.SHA256 != fmt.Sprintf("%x", sha256.Sum256([]byte("<!doctype html><p>card v1</p>"))) {
			t.Errorf("app = %+v", app)
		}
		if string(app.Input) != `{"id":"7"}` {
			t.Errorf("input = %s", app.Input)
		}
		var res struct {
			Content           []map[string]any `json:"content"`
			StructuredContent map[string]any   `json:"structuredContent"`
		}
		if err := json.Unmarshal(app.Result, &res); err != nil || res.StructuredContent["said"] != "a red car" || len(res.Content) != 1 {
			t.Errorf("result = %s (%v), want the server's CallToolResult", app.Result, err)
		}
		// A tool without a resource has no app.
		if out := CallToolWithApp(t.Context(), m, AudienceWeb, "shop__model_only", nil, 0, nil); out.App != nil || out.Kind != tools.OK {
			t.Errorf("model_only: %+v, want no app", out)
		}
	})
}

// TestAppResultCapped: a result over MaxAppResult reaches the app as its text only.
func TestAppResultCapped(t *testing.T) {
	big := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", MaxAppResult)}}}
	raw := AppResult(big, "short text")
	if len(raw) > MaxAppResult || !strings.Contains(string(raw), "short text") {
		t.Errorf("AppResult of a big result = %d bytes %.80s…, want the text only", len(raw), raw)
	}
}
