package agentsvc

// MCP Apps in web conversations: a server tool's result goes to the page with its app
// (tool_result's app), and the app's own tool calls come back as agent/appCall, bound to the
// app's session and server by a token the agent signed.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// appKey signs the apps' tokens. It lives as long as the process; a token signed before a
// restart, or by another replica, is good when the session's own history holds it
// (tokenInHistory).
var appKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return k
}()

// appToken binds an app to its session and server: "<server>.<mac>".
func appToken(sessionID, server string) string {
	mac := hmac.New(sha256.New, appKey)
	mac.Write([]byte(sessionID + "\x00" + server))
	return server + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// appTokenServer returns the server of a token signed for sessionID.
func appTokenServer(sessionID, token string) (string, bool) {
	i := strings.LastIndexByte(token, '.')
	if i <= 0 {
		return "", false
	}
	server := token[:i]
	return server, hmac.Equal([]byte(token), []byte(appToken(sessionID, server)))
}

// appTokenScan bounds the events of a session read to find a token in its history.
const appTokenScan = 5000

// tokenInHistory is the server of an app token that one of the session's own tool_result
// events carries: the token of an app shown before a restart or by another replica (whose key
// this process does not have) is good here, as the store holding the session's events is
// shared. It reads at most appTokenScan events, the newest up to seq (the session's last
// stored event), a thousand at a time, and only decodes those that contain the token.
func tokenInHistory(ctx context.Context, st store.Store, sessionID, token string, seq int64) (string, bool) {
	if token == "" {
		return "", false
	}
	needle, _ := json.Marshal(token)
	after := max(0, seq-appTokenScan)
	for read := 0; read < appTokenScan; {
		evs, err := st.EventsAfter(ctx, sessionID, after, 1000)
		if err != nil || len(evs) == 0 {
			return "", false
		}
		for _, ev := range evs {
			if !bytes.Contains(ev.Data, needle) {
				continue
			}
			var e struct {
				Type string    `json:"type"`
				App  *wire.App `json:"app"`
			}
			if json.Unmarshal(ev.Data, &e) == nil && e.Type == wire.EventToolResult && e.App != nil && e.App.Token == token {
				return e.App.Server, true
			}
		}
		read += len(evs)
		after = evs[len(evs)-1].Seq
	}
	return "", false
}

// callServerTool is mcpservers.CallToolWithApp for the session: the app it returns carries
// the session's token for its server.
func (t *sessionTools) callServerTool(ctx context.Context, name string, args json.RawMessage) tools.Outcome {
	out := mcpservers.CallToolWithApp(ctx, t.ls.hub.cfg.ServerTools, mcpservers.AudienceWeb, name, args, t.ls.hub.cfg.Limits.MaxOutput, t.ls.log)
	if out.App != nil {
		out.App.Token = appToken(t.ls.id, out.App.Server)
	}
	return out
}

// Errors of agent/appCall.
var (
	errAppToken   = wsrpc.NewError(wire.CodeInvalidParams, "invalid params: the app's token is not this session's (the app is another conversation's)")
	errAppProxied = wsrpc.NewError(wire.CodeInvalidParams, "invalid params: app calls are not relayed to the replica that has the session; reload the page")
	errNoApps     = wsrpc.NewError(wire.CodeInvalidParams, "invalid params: this agent has no server-side tools for apps")
)

// appCall handles agent/appCall: an app's tools/call, relayed by the page. The tool must be
// one of the app's own server, callable by apps (visibility), and of a server the page's site
// uses; a call the confirm rule names (mcpservers.NeedsConfirmation) is confirmed by the
// visitor on this page first. Tool failures are results with isError, for the app.
func (s *Server) appCall(ctx context.Context, c *pageConn, p wire.AppCallParams) (any, error) {
	ls := c.boundSession()
	if ls == nil {
		return nil, wire.ErrNoSession
	}
	if c.boundProxy() != nil {
		return nil, errAppProxied
	}
	server, ok := appTokenServer(ls.id, p.Token)
	if !ok {
		server, ok = tokenInHistory(ctx, ls.hub.store, ls.id, p.Token, ls.persistedSeq())
	}
	if !ok {
		return nil, errAppToken
	}
	st := s.cfg.ServerTools
	apps, ok := st.(mcpservers.Apps)
	if !ok {
		return nil, errNoApps
	}
	args := p.Arguments
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	failed := func(msg string) (any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}, nil
	}
	tool, err := apps.AppTool(mcpservers.AudienceWeb, server, p.Name)
	if err != nil || !s.site(ls.origin).AllowsServer(tool.ModelName) {
		c.log.Info("refused an app's tool call", zap.String("server", server), zap.String("tool", p.Name), zap.Error(err))
		return failed("this app cannot call " + tools.Truncate(p.Name, 128) + " (not a tool its server lets apps call here)")
	}
	if s.confirmsServerTool(ls.origin, tool.ModelName) {
		out, edited, ok := c.confirmCall(ctx, tool.ModelName, args, confirmTool(st, tool.ModelName))
		if !ok {
			return failed(out.Text)
		}
		if edited != nil {
			args = edited
		}
	}
	res, err := apps.CallForApp(ctx, mcpservers.AudienceWeb, server, p.Name, args)
	switch {
	case err == nil:
		return json.RawMessage(mcpservers.AppResult(res, renderText(res))), nil
	case errors.Is(err, mcpservers.ErrInvalidArguments):
		return failed("invalid arguments: " + err.Error())
	default:
		c.log.Info("an app's tool call failed", zap.String("server", server), zap.String("tool", p.Name), zap.Error(err))
		return failed("the tool call failed: " + err.Error())
	}
}

func renderText(res *mcp.CallToolResult) string {
	text, _ := tools.Render(res, 0)
	return text
}
