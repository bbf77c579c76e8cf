package mcpservers

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865): the agent tells servers it
// renders text/html;profile=mcp-app resources, remembers each tool's _meta.ui (its ui://
// resource and who may call it), reads the resources (cached per server and URI), and calls
// the tools an app may call, on the app's own server only.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// The extension's names.
const (
	// AppsExtension is the extension's key in the client's capabilities.extensions.
	AppsExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the one resource type the agent reads for an app (and advertises).
	AppMIMEType = "text/html;profile=mcp-app"
	// MaxAppResource bounds an app's HTML: a larger resource is refused (the tool's result
	// still reaches the visitor and the model, without its app).
	MaxAppResource = 512 << 10
	// MaxAppResult bounds the CallToolResult JSON handed to an app; a larger one is replaced by
	// a text-only result of the rendered text.
	MaxAppResult = 64 << 10
	// maxAppCSPDomains bounds the origins of each of an app's CSP lists.
	maxAppCSPDomains = 32
)

// Visibilities of a tool (_meta.ui.visibility); absent means both.
const (
	VisibleToModel = "model"
	VisibleToApp   = "app"
)

// ErrAppGone is returned by AppDocument when the resource's document is no longer the one
// asked for (the server changed it).
var ErrAppGone = errors.New("mcpservers: this app's document is no longer available")

// ErrNoApp is returned by AppResource when a server's resource cannot be shown as an app.
var ErrNoApp = errors.New("mcpservers: no app")

// ToolUI is a tool's _meta.ui.
type ToolUI struct {
	// ResourceURI is the ui:// resource shown with the tool's results ("" when the tool has
	// none, yet a visibility).
	ResourceURI string
	// Visibility lists who may call the tool: VisibleToModel, VisibleToApp.
	Visibility []string
}

// ForModel tells whether the model is offered the tool.
func (u *ToolUI) ForModel() bool { return u == nil || slices.Contains(u.Visibility, VisibleToModel) }

// ForApp tells whether an app of the tool's server may call it.
func (u *ToolUI) ForApp() bool { return u == nil || slices.Contains(u.Visibility, VisibleToApp) }

// toolUI reads a tool's _meta.ui (and the older flat "ui/resourceUri" key); nil when the
// tool has neither. A resourceUri that is not ui:// is ignored; an unknown or absent
// visibility means ["model", "app"].
func toolUI(meta map[string]any) *ToolUI {
	var u ToolUI
	ui, _ := meta["ui"].(map[string]any)
	if uri, ok := ui["resourceUri"].(string); ok {
		u.ResourceURI = uri
	} else if uri, ok := meta["ui/resourceUri"].(string); ok {
		u.ResourceURI = uri
	}
	if !strings.HasPrefix(u.ResourceURI, "ui://") {
		u.ResourceURI = ""
	}
	if vis, ok := ui["visibility"].([]any); ok {
		for _, v := range vis {
			if s, ok := v.(string); ok && (s == VisibleToModel || s == VisibleToApp) && !slices.Contains(u.Visibility, s) {
				u.Visibility = append(u.Visibility, s)
			}
		}
	}
	if u.ResourceURI == "" && u.Visibility == nil {
		return nil
	}
	if u.Visibility == nil {
		u.Visibility = []string{VisibleToModel, VisibleToApp}
	}
	return &u
}

// appCapabilities adds the extension to a client's capabilities.
func appCapabilities(c *mcp.ClientCapabilities) {
	c.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
}

// AppResource is a ui:// resource ready to show.
type AppResource struct {
	URI  string
	HTML string
	// SHA256 is the lower-case hex SHA-256 of HTML: the document's name in tool_result's app.
	SHA256        string
	CSP           *wire.AppCSP
	PrefersBorder *bool
}

// AppResource reads server's resource uri (resources/read), or returns it from the cache.
// The cache is per server and URI; it is dropped when the server reconnects and when it
// says a resource changed (notifications/resources/updated, resources/list_changed).
func (m *Manager) AppResource(ctx context.Context, name, uri string) (*AppResource, error) {
	s := m.serverNamed(name)
	if s == nil {
		return nil, fmt.Errorf("%w: no server %q", ErrUnknownTool, name)
	}
	s.mu.Lock()
	cs, gen := s.session, s.appGen
	if r, ok := s.apps[uri]; ok {
		s.mu.Unlock()
		m.appReads.hit.Add(1)
		return r, nil
	}
	s.mu.Unlock()
	if cs == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnavailable, name)
	}
	m.appReads.miss.Add(1)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcpservers: reading %s of %q: %w", uri, name, err)
	}
	r, err := appFromContents(uri, res, s.log)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.session == cs && s.appGen == gen { // not changed meanwhile
		s.apps[uri] = r
	}
	subscribe := s.session == cs && !s.appSubs[uri]
	if subscribe {
		s.appSubs[uri] = true
	}
	s.mu.Unlock()
	// A server that offers resources/subscribe says when the resource changes
	// (notifications/resources/updated): the cache is dropped then.
	if info := cs.InitializeResult(); subscribe && info != nil && info.Capabilities != nil &&
		info.Capabilities.Resources != nil && info.Capabilities.Resources.Subscribe {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			s.log.Info("could not subscribe to an app's resource; it is read again after a reconnect or list_changed", zap.String("uri", uri), zap.Error(err))
		}
	}
	return r, nil
}

// AppDocument returns the document of server's app resource uri whose SHA-256 is sha (hex),
// for audience: from the cache, or read again from the server (another replica showed the app,
// the agent restarted, or the cache was dropped), and only while its content still has that
// hash (else ErrAppGone). uri must be the ui:// resource of one of the server's tools
// (ErrNoApp otherwise): nothing else of the server is served this way.
func (m *Manager) AppDocument(ctx context.Context, audience, server, uri, sha string) (*AppResource, error) {
	s := m.serverNamed(server)
	if s == nil {
		return nil, fmt.Errorf("%w: no server %q", ErrUnknownTool, server)
	}
	if !s.cfg.Exposed(audience) {
		return nil, fmt.Errorf("%w: server %q is not available to %s", ErrNotExposed, server, audience)
	}
	s.mu.Lock()
	declared := false
	for _, t := range s.tools {
		if t.UI != nil && t.UI.ResourceURI != "" && t.UI.ResourceURI == uri {
			declared = true
			break
		}
	}
	s.mu.Unlock()
	if !declared {
		return nil, fmt.Errorf("%w: %q is not the app of a tool of %q", ErrNoApp, uri, server)
	}
	r, err := m.AppResource(ctx, server, uri)
	if err != nil {
		return nil, err
	}
	if r.SHA256 != sha {
		return nil, fmt.Errorf("%w: %s of %q has changed", ErrAppGone, uri, server)
	}
	return r, nil
}

func (m *Manager) serverNamed(name string) *server {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// dropApps forgets the server's cached resources (its session changed, or it said so).
func (s *server) dropApps() {
	s.mu.Lock()
	s.apps = map[string]*AppResource{}
	s.appGen++
	s.mu.Unlock()
}

func appFromContents(uri string, res *mcp.ReadResourceResult, log *zap.Logger) (*AppResource, error) {
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && rc.URI == uri {
			c = rc
			break
		}
	}
	if c == nil && len(res.Contents) == 1 {
		c = res.Contents[0]
	}
	if c == nil {
		return nil, fmt.Errorf("%w: %s: no contents", ErrNoApp, uri)
	}
	if mt := strings.ReplaceAll(strings.ToLower(c.MIMEType), " ", ""); mt != AppMIMEType {
		return nil, fmt.Errorf("%w: %s: mimeType %q, want %q", ErrNoApp, uri, c.MIMEType, AppMIMEType)
	}
	html := c.Text
	if html == "" && len(c.Blob) > 0 {
		html = string(c.Blob)
	}
	if len(html) > MaxAppResource {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d allowed", ErrNoApp, uri, len(html), MaxAppResource)
	}
	if html == "" {
		return nil, fmt.Errorf("%w: %s is empty", ErrNoApp, uri)
	}
	sum := sha256.Sum256([]byte(html))
	r := &AppResource{URI: uri, HTML: html, SHA256: hex.EncodeToString(sum[:])}
	if ui, ok := c.Meta["ui"].(map[string]any); ok {
		r.CSP = appCSP(ui["csp"], log)
		if b, ok := ui["prefersBorder"].(bool); ok {
			r.PrefersBorder = &b
		}
	}
	return r, nil
}

// cspOrigin is what an app's CSP list may hold: a scheme, a host (maybe with a leading
// "*."), a port. Nothing else reaches the widget's policy (no quotes, no ";", no keywords).
var cspOrigin = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)

func appCSP(v any, log *zap.Logger) *wire.AppCSP {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	list := func(key string) []string {
		var out []string
		vs, _ := m[key].([]any)
		for _, v := range vs {
			s, _ := v.(string)
			if !cspOrigin.MatchString(s) || len(out) == maxAppCSPDomains {
				log.Warn("ignoring an app's CSP entry that is not an origin, or one too many", zap.String("list", key), zap.Any("entry", v))
				continue
			}
			out = append(out, s)
		}
		return out
	}
	csp := &wire.AppCSP{ConnectDomains: list("connectDomains"), ResourceDomains: list("resourceDomains"),
		FrameDomains: list("frameDomains"), BaseURIDomains: list("baseUriDomains")}
	if csp.ConnectDomains == nil && csp.ResourceDomains == nil && csp.FrameDomains == nil && csp.BaseURIDomains == nil {
		return nil
	}
	return csp
}

// AppTool returns the tool named name on server, as an app of that server may call it for
// audience: ErrUnknownTool when there is none (or it is another server's), ErrNotExposed
// when the server is not exposed to audience or the tool is for the model only.
func (m *Manager) AppTool(audience, server, name string) (Tool, error) {
	for _, s := range m.servers {
		if s.cfg.Name != server {
			continue
		}
		if !s.cfg.Exposed(audience) {
			return Tool{}, fmt.Errorf("%w: server %q is not available to %s", ErrNotExposed, server, audience)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, t := range s.tools {
			if t.Name == name {
				if !t.UI.ForApp() {
					return Tool{}, fmt.Errorf("%w: %q of %q is not callable by its apps", ErrNotExposed, name, server)
				}
				return t.Tool, nil
			}
		}
	}
	return Tool{}, fmt.Errorf("%w: %q on server %q", ErrUnknownTool, name, server)
}

// CallForApp calls tool name of server for an app of that server (AppTool's rules), with
// Call's validation and timeouts.
func (m *Manager) CallForApp(ctx context.Context, audience, server, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t, err := m.AppTool(audience, server, name)
	if err != nil {
		return nil, err
	}
	s, tl, err := m.lookup(audience, t.ModelName)
	if err != nil {
		return nil, err
	}
	return m.callTool(ctx, s, tl, args)
}

// Apps is what a ServerTools may also do for MCP Apps (the Manager does).
type Apps interface {
	AppResource(ctx context.Context, server, uri string) (*AppResource, error)
	AppTool(audience, server, name string) (Tool, error)
	CallForApp(ctx context.Context, audience, server, name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

var _ Apps = (*Manager)(nil)

// CallToolWithApp is CallTool that also returns, for a tool with a ui:// resource, the app
// to show with its result (Outcome.App, without its Token): the resource read (or cached)
// and the call's input and result. A resource that cannot be read leaves the outcome as
// CallTool's, with a log line: the visitor and the model still get the text.
func CallToolWithApp(ctx context.Context, st ServerTools, audience, name string, args json.RawMessage, maxOutput int, log *zap.Logger) tools.Outcome {
	apps, ok := st.(Apps)
	t, found := Find(st, audience, name)
	if !ok || !found || t.UI == nil || t.UI.ResourceURI == "" {
		return CallTool(ctx, st, audience, name, args, maxOutput)
	}
	res, err := st.Call(ctx, audience, name, args)
	out := outcomeOf(ctx, name, res, err, maxOutput)
	if err != nil {
		return out
	}
	r, err := apps.AppResource(ctx, t.Server, t.UI.ResourceURI)
	if err != nil {
		if log != nil {
			log.Warn("the tool's app cannot be shown", zap.String("tool", name), zap.Error(err))
		}
		return out
	}
	out.App = &wire.App{Server: t.Server, Tool: t.Name, URI: r.URI, SHA256: r.SHA256, CSP: r.CSP, PrefersBorder: r.PrefersBorder,
		Input: appJSON(args, `{}`), Result: AppResult(res, out.Text)}
	return out
}

// AppResult is a CallToolResult as an app is given it: as the server sent it, or, over
// MaxAppResult, its rendered text only.
func AppResult(res *mcp.CallToolResult, text string) json.RawMessage {
	b, err := json.Marshal(res)
	if err == nil && len(b) <= MaxAppResult {
		return b
	}
	small := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tools.Truncate(text, MaxAppResult/2)}}, IsError: res != nil && res.IsError}
	b, _ = json.Marshal(small)
	return b
}

func appJSON(raw json.RawMessage, empty string) json.RawMessage {
	if len(strings.TrimSpace(string(raw))) == 0 || !json.Valid(raw) {
		return json.RawMessage(empty)
	}
	return raw
}
