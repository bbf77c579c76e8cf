package agentsvc

// A server tool's MCP server asks the visitor for input during a web conversation's call
// (elicitation/create): the conversation's page asks them (agent/elicit), the way it asks them
// to confirm a call, and the server gets their answer.

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// callAsks asks the visitor of a conversation the questions a server asks during one call of
// its tool, and records how each ended (the tool_result's asked list).
type callAsks struct {
	t    *sessionTools
	tool string // the server tool called

	mu    sync.Mutex
	asked []wire.Asked
}

// askedLineMax bounds the runes of a server's question quoted to the model.
const askedLineMax = 200

// withAsks returns ctx for a call of server tool name whose servers' questions go to the
// conversation's page, and the call's record of them.
func (t *sessionTools) withAsks(ctx context.Context, name string) (context.Context, *callAsks) {
	a := &callAsks{t: t, tool: name}
	return mcpservers.WithAsker(ctx, t.ls.id, a.ask), a
}

// ask is the call's mcpservers.Asker: it asks the conversation's current page, and the next
// one when the page goes away while its visitor is asked (onPage: a reload, a navigation,
// another replica), so it is answered once. No page, a page that cannot ask, no answer in
// time, or an answer that does not fit: the server is told cancel.
func (a *callAsks) ask(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	wp := wire.ElicitParams{Server: server, Message: p.Message, Mode: p.Mode, URL: p.URL, ElicitationID: p.ElicitationID}
	if wp.Mode == "" {
		wp.Mode = wire.ElicitForm
	}
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			a.t.ls.log.Warn("a server's request for input has a schema that does not encode; the server is told cancel", zap.String("mcpServer", server), zap.Error(err))
			return a.record(wp, wire.ElicitResult{Action: wire.ElicitCancel}, wire.AskedUnable), nil
		}
		wp.RequestedSchema = requiredFirst(raw)
	}
	// The page sees the tool_call event before the question (its form sits under the call).
	a.t.ls.waitFlushed(ctx)
	res, missed := wire.ElicitResult{Action: wire.ElicitCancel}, wire.AskedUnable
	a.t.onPage(ctx, a.tool, tools.Outcome{}, func(c pageLink) tools.Outcome {
		var again bool
		res, missed, again = c.elicit(ctx, wp)
		return tools.Outcome{AskAgain: again}
	})
	if missed == wire.AskedUnable {
		a.t.ls.log.Info("no page of the conversation could ask its visitor for a server's input; the server is told cancel", zap.String("mcpServer", server))
	}
	return a.record(wp, res, missed), nil
}

// record notes how a question ended and gives the server its answer.
func (a *callAsks) record(p wire.ElicitParams, res wire.ElicitResult, missed string) *mcp.ElicitResult {
	a.mu.Lock()
	a.asked = append(a.asked, wire.Asked{Server: p.Server, Message: p.Message, Mode: p.Mode, Action: res.Action, Missed: missed, At: time.Now().UnixMilli()})
	a.mu.Unlock()
	return &mcp.ElicitResult{Action: res.Action, Content: res.Content}
}

// into adds the call's questions to its outcome: the asked list, and for the model one line
// per question the visitor did not accept, before the tool's own text.
func (a *callAsks) into(out *tools.Outcome) {
	a.mu.Lock()
	asked := a.asked
	a.asked = nil
	a.mu.Unlock()
	if len(asked) == 0 {
		return
	}
	out.Asked = &asked
	lines := ""
	for _, q := range asked {
		if l := askedLine(q); l != "" {
			lines += l + "\n"
		}
	}
	out.Text = lines + out.Text
}

// askedLine is what the model reads of a question the visitor did not accept ("" when they did).
func askedLine(q wire.Asked) string {
	head := "The user was asked \"" + clipRunes(q.Message, askedLineMax) + "\""
	tail := "; the server was told " + q.Action + "."
	switch {
	case q.Missed == wire.AskedLate:
		return head + " and did not answer in time" + tail
	case q.Missed == wire.AskedGone:
		return head + " but the page went away before they answered" + tail
	case q.Missed == wire.AskedUnable:
		return head + " but the page could not ask them" + tail
	case q.Missed == wire.AskedBadAnswer:
		return head + " but the page's answer was not valid" + tail
	case q.Action == wire.ElicitDecline:
		return head + " and declined" + tail
	case q.Action == wire.ElicitCancel:
		return head + " and cancelled" + tail
	}
	return ""
}

// requiredFirst is a form's schema with its properties in the order the visitor fills them:
// the required ones first, then the others, each group by name (go-sdk hands the schema over
// as a map, whose order is lost; byomcp chat asks in the same order). A schema it cannot read
// is returned as it is (the page refuses a bad one).
func requiredFirst(raw json.RawMessage) json.RawMessage {
	var s map[string]json.RawMessage
	var props map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil || json.Unmarshal(s["properties"], &props) != nil || len(props) == 0 {
		return raw
	}
	var required []string
	_ = json.Unmarshal(s["required"], &required)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(required, a), slices.Contains(required, b)
		switch {
		case ra == rb:
			return 0
		case ra:
			return -1
		}
		return 1
	})
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(props[name])
	}
	buf.WriteByte('}')
	s["properties"] = buf.Bytes()
	out, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return out
}
