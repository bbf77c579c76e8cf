package agentsvc

// The toolbox of a session's turns: the attached page's tools and the server tools its site
// uses, named for the model through the session's namer.

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// sessionTools is a session's toolbox: the attached page's tools plus the server-side
// tools exposed to the web.
type sessionTools struct {
	ls  *liveSession
	srv *Server
	// page is the page the turn's last model call was offered the tools of: when the next
	// call finds another one (a tool navigated), that page's late tools are waited for.
	page pageLink
}

func (t *sessionTools) Defs(ctx context.Context) []chat.ToolDef {
	// The server's tools are named first: they keep their names, and a page tool that
	// collides with one (rejected when listed, unless the server came up later) is the one
	// the namer renames.
	server := t.srv.webServerDefs(t.ls.origin)
	for i, def := range server {
		server[i].Name = t.ls.namer.AssignAs(serverKey(def.Name), def.Name)
	}
	var defs []chat.ToolDef
	// A page that turns out to be gone (on another replica) is dropped, and the next one is
	// waited for, within ReconnectWait in all.
	deadline := time.Now().Add(t.ls.hub.cfg.ReconnectWait)
	for {
		c := t.ls.currentPage(ctx, time.Until(deadline))
		if c == nil {
			break
		}
		rctx, cancel := context.WithTimeout(ctx, t.ls.hub.cfg.HandshakeTimeout)
		list, ok := c.pageTools(rctx, t.page != nil && c != t.page)
		cancel()
		if ok {
			t.page = c
			defs = pagemcp.Defs(list, t.ls.namer)
			break
		}
	}
	return append(defs, server...)
}

// webServerDefs are the server tools a page of origin is offered: those of the servers its
// site uses (sites.json mcpServers), under their own names.
func (s *Server) webServerDefs(origin string) []chat.ToolDef {
	st := s.cfg.ServerTools
	if st == nil {
		return nil
	}
	site := s.site(origin)
	var defs []chat.ToolDef
	for _, def := range st.ToolDefs(mcpservers.AudienceWeb) {
		if site.AllowsServer(def.Name) {
			defs = append(defs, def)
		}
	}
	return defs
}

// webServerTools are the names of webServerDefs(origin).
func (s *Server) webServerTools(origin string) []string {
	var names []string
	for _, def := range s.webServerDefs(origin) {
		names = append(names, def.Name)
	}
	return names
}

// DisplayName is the name a tool has on its page (or server): the events name it so.
func (t *sessionTools) DisplayName(modelName string) string {
	orig, ok := t.ls.namer.Original(modelName)
	if !ok {
		return modelName
	}
	if name, isServer := strings.CutPrefix(orig, "\x00server:"); isServer {
		return name
	}
	return orig
}

// serverKey keeps server tool names apart from page tool names in the namer.
func serverKey(modelName string) string { return "\x00server:" + modelName }

// Call runs one call of the model, as a page or a server tool, and counts its outcome.
func (t *sessionTools) Call(ctx context.Context, call chat.ToolCall) (out tools.Outcome) {
	start := time.Now()
	kind := "page"
	defer func() { t.ls.hub.metrics.observeTool(kind, out.Label(), time.Since(start)) }()
	orig, ok := t.ls.namer.Original(call.Name)
	if !ok {
		return tools.Unknown(call.Name)
	}
	args := json.RawMessage(call.Arguments)
	if name, isServer := strings.CutPrefix(orig, "\x00server:"); isServer {
		kind = "server"
		if !t.srv.site(t.ls.origin).AllowsServer(name) {
			return tools.Unknown(call.Name)
		}
		st := t.ls.hub.cfg.ServerTools
		changed := ""
		var answer *wire.Confirmation
		if t.srv.confirmsServerTool(t.ls.origin, name) {
			asked, edited, ok := t.confirm(ctx, name, args, confirmTool(st, name))
			if !ok {
				return asked
			}
			answer = asked.Confirmation
			if edited != nil { // validated against the tool's schema by the call, like the model's
				changed, args = tools.ChangedArgs(args, edited), edited
			}
		}
		actx, asks := t.withAsks(ctx, name)
		out = t.callServerTool(actx, name, args)
		out.Confirmation = answer
		asks.into(&out)
		switch {
		case changed == "":
		case out.Kind == tools.OK || out.Kind == tools.ToolError:
			// The model learns that the call ran with the visitor's arguments, not its own.
			out.Text = changed + "\n" + out.Text
		case out.Kind == tools.InvalidArgs:
			out.Text = "The user changed the arguments before confirming, and theirs do not fit the tool's schema, so it did not run: " + out.Text
		}
		return out
	}
	// The page sees the tool_call event before the call itself (so a confirmation it shows
	// can sit under the call in the transcript).
	t.ls.waitFlushed(ctx)
	return t.onPage(ctx, orig, tools.NotConnected(orig), func(c pageLink) tools.Outcome {
		return c.callTool(ctx, orig, args)
	})
}

// askAgainMax bounds the pages in a row that one call's confirmation is asked of, each of
// which went away while its visitor was asked (a visitor who keeps reloading).
const askAgainMax = 5

// onPage runs ask on the conversation's page, and again on the page that comes next while a
// page goes away as its visitor is asked to confirm the call (AskAgain: the tool did not
// run): after a reload or a navigation, here or on another replica, the visitor's card is
// shown again, at most askAgainMax times and until ToolMaxTimeout from the first ask. none is
// the outcome when no page is there at first; a page that does not come back leaves the
// question unanswered, as the last page's outcome says.
func (t *sessionTools) onPage(ctx context.Context, name string, none tools.Outcome, ask func(pageLink) tools.Outcome) tools.Outcome {
	deadline := time.Now().Add(t.ls.hub.cfg.ToolMaxTimeout)
	var last tools.Outcome
	for try := 0; ; try++ {
		c := t.ls.currentPage(ctx, t.ls.hub.cfg.ReconnectWait)
		switch {
		case c == nil && ctx.Err() != nil:
			return tools.CancelledCall(name)
		case c == nil && try > 0:
			return last
		case c == nil:
			return none
		}
		out := ask(c)
		if !out.AskAgain || try+1 >= askAgainMax || !time.Now().Before(deadline) {
			return out
		}
		last = out
		t.ls.log.Info("the page went away while its visitor was asked (a confirmation or a server's question); the next page asks again", zap.String("tool", name))
	}
}

// confirmsServerTool tells whether a web conversation of origin has the visitor confirm each
// call of the server tool name before it runs: the same rule as for a page's tools, the
// tool's destructiveHint or the confirm policy (--confirm-tools, the site's confirmTools)
// naming it ("<server>__<tool>").
func (s *Server) confirmsServerTool(origin, name string) bool {
	return mcpservers.NeedsConfirmation(s.cfg.ServerTools, name, s.cfg.ConfirmTools, s.site(origin).Confirms)
}

// confirm asks the turn's page to have the visitor confirm a call of a server tool
// (agent/confirm). ok: confirmed; otherwise out says why the tool does not run. A page that
// is gone, or cannot ask (no agent/confirm), does not get the tool run unconfirmed.
func (t *sessionTools) confirm(ctx context.Context, name string, args json.RawMessage, tool *wire.ConfirmTool) (out tools.Outcome, edited json.RawMessage, ok bool) {
	// The page sees the tool_call event before the question (its card sits under the call).
	t.ls.waitFlushed(ctx)
	out = t.onPage(ctx, name, tools.Unconfirmable(name, "no page is connected to this conversation: it"), func(c pageLink) tools.Outcome {
		var o tools.Outcome
		o, edited, ok = c.confirmCall(ctx, name, args, tool)
		return o
	})
	return out, edited, ok
}

// confirmTool is what the visitor's confirmation card shows of server tool name: its
// title, description, schema (to label and edit the arguments), annotations and _meta (its
// summary of a call). nil when the server tools do not list them.
func confirmTool(st mcpservers.ServerTools, name string) *wire.ConfirmTool {
	t, ok := mcpservers.Find(st, mcpservers.AudienceWeb, name)
	if !ok {
		return nil
	}
	ct := &wire.ConfirmTool{Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Meta: t.Meta}
	if a := t.Annotations; a != nil {
		ct.Annotations = &wire.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	return ct
}
