package pagemcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Call validates args against the tool's schema and calls it in the page. The call times
// out after ToolTimeout unless the page reports progress, never beyond ToolMaxTimeout, and
// fails at once when the page disconnects. Every way it can end is an outcome of its own
// kind, set here where it is known.
func (c *Client) Call(ctx context.Context, name string, args json.RawMessage) tools.Outcome {
	t := c.tool(name)
	if t == nil {
		return tools.NotOnPage(name)
	}
	if err := t.schema.Validate(ctx, args); err != nil {
		if ctx.Err() != nil {
			return tools.CancelledCall(name)
		}
		return tools.InvalidArguments(name, err)
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var raw json.RawMessage
	expired, asking, err := c.callKeptAlive(ctx, wire.MethodToolsCall, func(token string) any {
		return wire.ToolsCallParams{Name: name, Arguments: args, Meta: &wire.ToolsCallMeta{ProgressToken: token, Confirm: t.confirm}}
	}, &raw)
	out := func() tools.Outcome {
		var rpcErr *wsrpc.Error
		switch {
		case err == nil:
			text, isError, resMeta := tools.RenderJSON(raw, c.o.MaxOutput)
			if resMeta[wire.MetaNavigating] == true {
				c.leaving.Store(true)
				c.log.Debug("page navigating", zap.String("tool", name))
			}
			return tools.Answered(name, text, isError)
		case errors.Is(err, wsrpc.ErrClosed) && asking.awaiting:
			return tools.LeftUnconfirmed(name)
		case errors.Is(err, wsrpc.ErrClosed):
			return tools.Disconnected(name)
		case expired != nil && asking.awaiting:
			return tools.NotConfirmedInTime(name)
		case expired != nil:
			return tools.TimedOut(name, errors.Is(expired, errToolMaxTime))
		case ctx.Err() != nil:
			return tools.CancelledCall(name)
		case errors.As(err, &rpcErr):
			return tools.ErrorAnswer(name, rpcErr.Message)
		default:
			return tools.CallFailed(name, err)
		}
	}()
	out.Confirmation = asking.confirmation(out)
	return out
}

// callKeptAlive calls method in the page with the params built for a fresh progress token.
// The call times out after ToolTimeout unless the page reports progress, never beyond
// ToolMaxTimeout, and fails at once when the page disconnects. It returns why the call's own
// time ran out (errToolTimeout, errToolMaxTime; nil when it did not, or ctx ended first) and
// whether the last progress said the visitor is asked to confirm.
func (c *Client) callKeptAlive(ctx context.Context, method string, params func(token string) any, out *json.RawMessage) (expired error, asking askState, err error) {
	token := "byomcp-" + strconv.FormatInt(c.nextToken.Add(1), 10)
	// One timer ends the call: ToolTimeout after it started or after its last progress, or
	// at the hard limit, whichever comes first. The context says the hard limit as its
	// deadline, so that the socket's own call timeout does not apply.
	o := c.o
	start := time.Now()
	cancelCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dctx := deadlineCtx{cancelCtx, start.Add(o.ToolMaxTimeout)}
	next := func() time.Duration { return min(o.ToolTimeout, o.ToolMaxTimeout-time.Since(start)) }
	timer := time.AfterFunc(next(), func() {
		if time.Since(start) >= o.ToolMaxTimeout {
			cancel(errToolMaxTime)
		} else {
			cancel(errToolTimeout)
		}
	})
	defer timer.Stop()
	var asked atomic.Bool        // the last progress read: the visitor is asked to confirm
	var everAsked atomic.Bool    // the visitor was asked at some point
	var confirmedAt atomic.Int64 // when the page said the visitor confirmed (ms; 0: not)
	c.progMu.Lock()
	if c.progress == nil {
		c.progress = map[string]func(string){}
	}
	c.progress[token] = func(message string) {
		asked.Store(message == wire.ProgressAwaitingConfirm)
		switch message {
		case wire.ProgressAwaitingConfirm:
			everAsked.Store(true)
		case wire.ProgressConfirmed:
			confirmedAt.CompareAndSwap(0, time.Now().UnixMilli())
		}
		timer.Reset(next())
	}
	c.progMu.Unlock()
	defer func() {
		c.progMu.Lock()
		delete(c.progress, token)
		if len(c.progress) == 0 {
			c.progress = nil // an idle page holds no map
		}
		c.progMu.Unlock()
	}()
	err = c.peer.Call(dctx, method, params(token), out)
	if dctx.Err() != nil && ctx.Err() == nil {
		expired = context.Cause(dctx)
	}
	return expired, askState{awaiting: asked.Load(), asked: everAsked.Load(), confirmedAt: confirmedAt.Load()}, err
}

// askState is what a call's progress said of the visitor's confirmation.
type askState struct {
	awaiting    bool  // the last progress: the visitor is asked (the tool has not run)
	asked       bool  // the visitor was asked
	confirmedAt int64 // when the page said they confirmed (ms since the epoch; 0: it did not)
}

// confirmation is how the visitor answered a call the page asked them to confirm, read from
// its progress and its outcome (nil when they were not asked).
func (s askState) confirmation(out tools.Outcome) *wire.Confirmation {
	if !s.asked && s.confirmedAt == 0 {
		return nil
	}
	now := time.Now().UnixMilli()
	switch {
	case s.confirmedAt != 0:
		return &wire.Confirmation{Answer: wire.ConfirmConfirmed, Changed: tools.ChangedByVisitor(out.Text), At: s.confirmedAt}
	case out.Kind == tools.ToolError:
		if reason, declined := tools.DeclinedReason(out.Text); declined {
			return &wire.Confirmation{Answer: wire.ConfirmDeclined, Reason: reason, At: now}
		}
	}
	if s.awaiting { // the page went, or the time ran out, while the visitor was asked
		return &wire.Confirmation{Answer: wire.ConfirmUnanswered, At: now}
	}
	return nil
}

// Confirm asks the page to have the visitor confirm a call of the server tool name
// (agent/confirm) before it runs, with the same timeouts as a page tool's call; tool (may be
// nil) is what the card shows of it. ok: the visitor allowed it, and edited are the
// arguments they changed on the card (nil: none; the caller validates them against the
// tool's schema); otherwise out says why the tool did not run (declined, with the visitor's
// reason, not answered in time, the page gone or unable to ask).
func (c *Client) Confirm(ctx context.Context, name string, args json.RawMessage, tool *wire.ConfirmTool) (out tools.Outcome, edited json.RawMessage, ok bool) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var res wire.ConfirmResult
	var raw json.RawMessage
	expired, _, err := c.callKeptAlive(ctx, wire.MethodAgentConfirm, func(token string) any {
		return wire.ConfirmParams{Name: name, Arguments: args, Tool: tool, Meta: &wire.ToolsCallMeta{ProgressToken: token, Confirm: true}}
	}, &raw)
	if err == nil {
		if jerr := json.Unmarshal(raw, &res); jerr != nil {
			return tools.Unconfirmable(name, "the page's answer to agent/confirm is not {confirmed: boolean}: it"), nil, false
		}
		now := time.Now().UnixMilli()
		if !res.Confirmed {
			out := tools.Declined(name, res.Reason)
			reason, _ := tools.DeclinedReason(out.Text)
			out.Confirmation = &wire.Confirmation{Answer: wire.ConfirmDeclined, Reason: reason, At: now}
			return out, nil, false
		}
		confirmed := tools.Outcome{Confirmation: &wire.Confirmation{Answer: wire.ConfirmConfirmed, At: now}}
		if len(res.Arguments) > 0 && string(res.Arguments) != "null" {
			var obj map[string]json.RawMessage
			if json.Unmarshal(res.Arguments, &obj) != nil {
				return tools.Unconfirmable(name, "the page's answer to agent/confirm has arguments that are not an object: it"), nil, false
			}
			confirmed.Confirmation.Changed = true
			return confirmed, res.Arguments, true
		}
		return confirmed, nil, true
	}
	var rpcErr *wsrpc.Error
	switch {
	case errors.Is(err, wsrpc.ErrClosed):
		return unanswered(tools.LeftUnconfirmed(name)), nil, false
	case expired != nil:
		return unanswered(tools.NotConfirmedInTime(name)), nil, false
	case ctx.Err() != nil:
		return tools.CancelledCall(name), nil, false
	case errors.As(err, &rpcErr) && rpcErr.Code == wsrpc.CodeMethodNotFound:
		return tools.Unconfirmable(name, "this page (no agent/confirm)"), nil, false
	case errors.As(err, &rpcErr):
		return tools.Unconfirmable(name, "this page (agent/confirm: "+rpcErr.Message+")"), nil, false
	default:
		return tools.CallFailed(name, err), nil, false
	}
}

// unanswered marks out as a call the visitor was asked to confirm and did not answer.
func unanswered(out tools.Outcome) tools.Outcome {
	out.Confirmation = &wire.Confirmation{Answer: wire.ConfirmUnanswered, At: time.Now().UnixMilli()}
	return out
}

// onProgress extends the deadline of the call that owns the token.
func (c *Client) onProgress(params json.RawMessage) {
	var p wire.ProgressParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var token string
	if err := json.Unmarshal(p.ProgressToken, &token); err != nil {
		token = string(p.ProgressToken)
	}
	c.progMu.Lock()
	extend := c.progress[token]
	c.progMu.Unlock()
	if extend != nil {
		extend(p.Message)
	}
}

// Defs returns the page's tools as the model sees them, named through namer.
func Defs(list []*Tool, namer *tools.Namer) []chat.ToolDef {
	defs := make([]chat.ToolDef, 0, len(list))
	for _, t := range list {
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		params := t.InputSchema
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		defs = append(defs, chat.ToolDef{Name: namer.Assign(t.Name), Description: desc, Parameters: params})
	}
	return defs
}

// deadlineCtx is a call's context with the deadline its timer keeps (Client.Call).
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (c deadlineCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Elicit asks the page to have the visitor answer a server's request for input (agent/elicit),
// with the same time-outs and keep-alive as Confirm. missed is "" when the page answered with
// a well-formed result whose content fits the requested schema (checked here again: the page
// is not trusted); otherwise res is cancel and missed says why (wire.AskedLate, AskedGone,
// AskedUnable, AskedBadAnswer). again: the page went away while its visitor was asked, so the
// page that comes next may ask again. A cancelled ctx gives cancel with missed AskedGone.
func (c *Client) Elicit(ctx context.Context, p wire.ElicitParams) (res wire.ElicitResult, missed string, again bool) {
	cancelled := wire.ElicitResult{Action: wire.ElicitCancel}
	var raw json.RawMessage
	expired, _, err := c.callKeptAlive(ctx, wire.MethodAgentElicit, func(token string) any {
		p.Meta = &wire.ToolsCallMeta{ProgressToken: token}
		return p
	}, &raw)
	var rpcErr *wsrpc.Error
	switch {
	case err == nil:
	case errors.Is(err, wsrpc.ErrClosed):
		return cancelled, wire.AskedGone, true
	case expired != nil:
		return cancelled, wire.AskedLate, false
	case ctx.Err() != nil:
		return cancelled, wire.AskedGone, false
	case errors.As(err, &rpcErr) && rpcErr.Code == wsrpc.CodeMethodNotFound:
		c.log.Info("the page cannot ask its visitor for a server's input (no agent/elicit); the server is told cancel", zap.String("mcpServer", p.Server))
		return cancelled, wire.AskedUnable, false
	default:
		c.log.Info("the page could not ask its visitor for a server's input; the server is told cancel", zap.String("mcpServer", p.Server), zap.Error(err))
		return cancelled, wire.AskedUnable, false
	}
	if why := checkElicitAnswer(ctx, p, raw, &res); why != "" {
		c.log.Warn("the page's answer to agent/elicit is refused; the server is told cancel", zap.String("mcpServer", p.Server), zap.String("why", why))
		return cancelled, wire.AskedBadAnswer, false
	}
	return res, "", false
}

// checkElicitAnswer reads the page's answer into res; it says why the answer is refused: not
// {action, content?} with one of MCP's actions, content with an action other than accept or
// in URL mode, or content that does not fit the requested schema.
func checkElicitAnswer(ctx context.Context, p wire.ElicitParams, raw json.RawMessage, res *wire.ElicitResult) string {
	var shape struct {
		Action  *string         `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &shape) != nil || shape.Action == nil {
		return "not an object {action, content?}"
	}
	hasContent := len(shape.Content) > 0 && string(shape.Content) != "null"
	switch *shape.Action {
	case wire.ElicitDecline, wire.ElicitCancel:
		if hasContent {
			return "content with action " + *shape.Action
		}
		*res = wire.ElicitResult{Action: *shape.Action}
		return ""
	case wire.ElicitAccept:
	default:
		return "action is not accept, decline or cancel"
	}
	if p.Mode == wire.ElicitURL {
		if hasContent {
			return "content in URL mode"
		}
		*res = wire.ElicitResult{Action: wire.ElicitAccept}
		return ""
	}
	if !hasContent {
		shape.Content = json.RawMessage(`{}`)
	}
	var content map[string]any
	if json.Unmarshal(shape.Content, &content) != nil {
		return "content is not an object"
	}
	schema, err := tools.CompileSchema(p.RequestedSchema)
	if err != nil {
		return "the requested schema does not compile: " + err.Error()
	}
	if err := schema.Validate(ctx, shape.Content); err != nil {
		return "content does not fit the requested schema: " + err.Error()
	}
	*res = wire.ElicitResult{Action: wire.ElicitAccept, Content: content}
	return ""
}
