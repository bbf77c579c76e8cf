package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/wsrpc"
)

// Causes of a page tool call's end by its timers.
var (
	errToolTimeout = errors.New("the tool did not answer in time")
	errToolMaxTime = errors.New("the tool ran past its hard time limit")
)

// pageTool is one usable tool of the page.
type pageTool struct {
	PageTool
	schema  *tools.Schema
	confirm bool // the user must confirm each call
}

// pageConn is one page socket seen from the agent: the MCP client of the page's tools.
//
// Its registry is replaced as a whole on each (re-)listing; readers take the current one
// under mu. The session it serves is attached by agent/session.
//
// Owners: the handshake goroutine does the first listing and then fires markListed (a
// sync.OnceFunc, so listed is closed exactly once whatever path ends the handshake). Every
// later listing is done by one re-list goroutine at a time (relistLoop), started by the
// first notifications/tools/list_changed while none runs; it alone closes the relistDone
// channel it took, once no re-list is due any more, and clears relistRunning under mu
// before it returns. lastOp is changed only by the read goroutine (the start of each
// agent/session, agent/chat and agent/cancel; see Server.registerHandlers).
//
// Lock order: liveSession.mu, then pageConn.mu (attach holds the first and calls
// boundSession); mu and progMu are never held together; no call to the page is made under
// either.
type pageConn struct {
	id     string
	origin string
	client string // the TCP remote address's host, for the per-client budgets ("" = none)
	since  time.Time
	peer   *wsrpc.Peer
	log    *zap.Logger
	srv    *Server

	listed     chan struct{} // closed once the first listing is done (or failed)
	markListed func()        // closes listed, once

	// lastOp is closed when the page's last request that changes or uses its session
	// (agent/session, agent/chat, agent/cancel) has been handled: the next one waits for it,
	// so the requests of one socket take effect in the order they were sent. Read goroutine only.
	lastOp <-chan struct{}

	mu            sync.Mutex
	tools         []*pageTool // in the page's order
	byName        map[string]*pageTool
	relistDone    chan struct{} // non-nil while a re-list is due or running; closed by relistLoop
	relistDue     time.Time     // when the due re-list may start (debounce); zero: none due
	relistRunning bool          // a relistLoop goroutine runs
	session       *liveSession
	rejected      map[string]string // tool name → reason, already reported

	// leaving is set when a tool result said the page is navigating away.
	leaving atomic.Bool

	progMu   sync.Mutex
	progress map[string]func() // progress token → extend the call's deadline

	nextToken atomic.Int64
}

func newPageConn(srv *Server, id, origin string, log *zap.Logger) *pageConn {
	listed := make(chan struct{})
	done := make(chan struct{})
	close(done)
	return &pageConn{
		id:         id,
		origin:     origin,
		since:      time.Now(),
		srv:        srv,
		log:        log,
		byName:     map[string]*pageTool{},
		listed:     listed,
		markListed: sync.OnceFunc(func() { close(listed) }),
		lastOp:     done,
		rejected:   map[string]string{},
		progress:   map[string]func(){},
	}
}

// handshake runs initialize → notifications/initialized → tools/list. A page that answers
// with an unsupported protocol version is closed with a clear reason.
func (c *pageConn) handshake(ctx context.Context) error {
	defer c.markListed() // whatever happens: toolsReady and the re-list loop wait for it
	ctx, cancel := context.WithTimeout(ctx, c.srv.cfg.HandshakeTimeout)
	defer cancel()
	var res InitializeResult
	err := c.peer.Call(ctx, MethodInitialize, InitializeParams{
		ProtocolVersion: ProtocolVersion,
		Capabilities:    map[string]any{},
		ClientInfo:      Implementation{Name: "byomcp", Version: Version},
	}, &res)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return fmt.Errorf("the page speaks MCP %q; this agent supports %v", res.ProtocolVersion, supportedVersions)
	}
	if err := c.peer.Notify(ctx, MethodInitialized, map[string]any{}); err != nil {
		return err
	}
	return c.list(ctx)
}

// maxListPages bounds pagination so a page cannot keep the agent listing forever.
const maxListPages = 64

// list fetches every page of tools/list and replaces the registry.
func (c *pageConn) list(ctx context.Context) error {
	var all []PageTool
	cursor := ""
	for i := 0; ; i++ {
		if i == maxListPages {
			return fmt.Errorf("tools/list: more than %d pages", maxListPages)
		}
		var res ToolsListResult
		if err := c.peer.Call(ctx, MethodToolsList, ToolsListParams{Cursor: cursor}, &res); err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	c.setTools(all)
	return nil
}

// setTools compiles and installs a new tool list; unusable tools are rejected one by one.
func (c *pageConn) setTools(list []PageTool) {
	byName := make(map[string]*pageTool, len(list))
	kept := make([]*pageTool, 0, len(list))
	type rejection struct{ name, reason string }
	var rejects []rejection
	budget := tools.NewDefBudget(c.srv.cfg.Limits.MaxTools) // what reaches the model, bounded before compiling
	for _, t := range list {
		reason := ""
		var sch *tools.Schema
		switch {
		case !tools.ValidPageName(t.Name):
			reason = "name must be 1-128 characters of A-Z a-z 0-9 _ . -"
		case byName[t.Name] != nil:
			reason = "duplicate tool name"
		default:
			if t.Description == "" {
				t.Description = t.Title // what pageDefs sends
			}
			if t.Description, reason = budget.Admit(t.Name, t.Description, t.InputSchema); reason != "" {
				break
			}
			var err error
			if sch, err = c.srv.schemas.compile(t.InputSchema); err != nil {
				reason = err.Error()
			}
		}
		if reason != "" {
			rejects = append(rejects, rejection{t.Name, reason})
			continue
		}
		pt := &pageTool{PageTool: t, schema: sch}
		pt.confirm = (t.Annotations != nil && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint) ||
			slices.Contains(c.srv.cfg.ConfirmTools, t.Name) || c.srv.site(c.origin).Confirms(t.Name)
		byName[t.Name] = pt
		kept = append(kept, pt)
	}
	c.mu.Lock()
	c.tools = kept
	c.byName = byName
	var fresh []rejection
	for _, r := range rejects {
		if c.rejected[r.name] != r.reason {
			c.rejected[r.name] = r.reason
			fresh = append(fresh, r)
		}
	}
	sess := c.session
	c.mu.Unlock()
	for _, r := range fresh {
		c.log.Warn("page tool rejected", zap.String("tool", r.name), zap.String("reason", r.reason))
		ev := &ToolRejectedEvent{EventHeader: EventHeader{Type: EventToolRejected}, Name: r.name, Reason: r.reason}
		if sess != nil {
			ev.SessionID = sess.id
		}
		c.sendEvent(ev)
	}
	c.log.Debug("page tools listed", zap.Int("tools", len(kept)), zap.Int("rejected", len(rejects)))
}

// sendEvent sends an event outside any session log.
func (c *pageConn) sendEvent(ev Event) {
	if err := c.peer.Notify(context.Background(), MethodAgentEvent, ev); err != nil {
		c.log.Debug("sending event", zap.Error(err))
	}
}

// onListChanged (read goroutine) makes a re-list due, RelistDebounce from the first change
// not yet listed, and starts the re-list goroutine when none runs. Model calls wait for it
// (toolsReady). A change during a listing makes another listing due after it, so the tools
// end as the page's latest.
func (c *pageConn) onListChanged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.relistDone == nil {
		c.relistDone = make(chan struct{})
	}
	if c.relistDue.IsZero() {
		c.relistDue = time.Now().Add(c.srv.cfg.RelistDebounce)
	}
	if !c.relistRunning {
		c.relistRunning = true
		go c.relistLoop()
	}
}

// relistLoop lists the page's tools again while a re-list is due, then releases the waiters
// (closes relistDone) and ends. It is the only goroutine that lists after the handshake and
// the only one that closes relistDone; a panic in it ends the page's socket with 1011 and
// still releases the waiters.
func (c *pageConn) relistLoop() {
	ended := false
	defer func() { // the socket ended, or a panic stopped the loop
		if !ended {
			c.mu.Lock()
			c.endRelistLocked()
			c.mu.Unlock()
		}
	}()
	defer c.srv.recoverSocket(c, "relist")
	select { // the first listing comes first
	case <-c.listed:
	case <-c.peer.Done():
		return
	}
	var timer *time.Timer
	for {
		c.mu.Lock()
		due := c.relistDue
		if due.IsZero() { // nothing due: release the waiters and end, in one step under mu
			c.endRelistLocked()
			c.mu.Unlock()
			ended = true
			return
		}
		if wait := time.Until(due); wait > 0 {
			c.mu.Unlock()
			if timer == nil {
				timer = time.NewTimer(wait)
				defer timer.Stop()
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-c.peer.Done():
				return
			}
			continue
		}
		c.relistDue = time.Time{} // a change from now on makes another listing due
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), c.srv.cfg.HandshakeTimeout)
		err := c.list(ctx)
		cancel()
		if err != nil {
			c.log.Warn("re-listing page tools", zap.Error(err))
		}
	}
}

// endRelistLocked closes relistDone and marks the loop ended; c.mu is held by relistLoop,
// the channel's only closer. The next list_changed starts a new loop with a new channel.
func (c *pageConn) endRelistLocked() {
	if c.relistDone != nil {
		close(c.relistDone)
		c.relistDone = nil
	}
	c.relistDue = time.Time{}
	c.relistRunning = false
}

// toolsReady waits (bounded by ctx) until the first listing and any due re-list are done.
func (c *pageConn) toolsReady(ctx context.Context) {
	select {
	case <-c.listed:
	case <-ctx.Done():
		return
	case <-c.peer.Done():
		return
	}
	c.mu.Lock()
	r := c.relistDone
	c.mu.Unlock()
	if r != nil {
		select {
		case <-r:
		case <-ctx.Done():
		case <-c.peer.Done():
		}
	}
}

// snapshot returns the current tools.
func (c *pageConn) snapshot() []*pageTool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

func (c *pageConn) tool(name string) *pageTool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byName[name]
}

// CallTool validates args against the tool's schema and calls it in the page. The call
// times out after the configured time unless the page reports progress, never beyond the
// hard maximum, and fails at once when the page disconnects. Every way it can end is an
// outcome of its own kind, set here where it is known.
func (c *pageConn) CallTool(ctx context.Context, name string, args json.RawMessage) tools.Outcome {
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
	token := "byomcp-" + strconv.FormatInt(c.nextToken.Add(1), 10)
	meta := map[string]any{"progressToken": token}
	if t.confirm {
		meta[MetaConfirm] = true
	}

	cfg := c.srv.cfg
	start := time.Now()
	hardCtx, hardCancel := context.WithDeadlineCause(ctx, start.Add(cfg.ToolMaxTimeout), errToolMaxTime)
	defer hardCancel()
	callCtx, cancel := context.WithCancelCause(hardCtx)
	defer cancel(nil)
	timer := time.AfterFunc(cfg.ToolTimeout, func() { cancel(errToolTimeout) })
	defer timer.Stop()
	c.progMu.Lock()
	c.progress[token] = func() {
		if left := cfg.ToolMaxTimeout - time.Since(start); cfg.ToolTimeout < left {
			timer.Reset(cfg.ToolTimeout)
		} else {
			timer.Stop() // the hard deadline comes first
		}
	}
	c.progMu.Unlock()
	defer func() {
		c.progMu.Lock()
		delete(c.progress, token)
		c.progMu.Unlock()
	}()

	var raw json.RawMessage
	err := c.peer.Call(callCtx, MethodToolsCall, ToolsCallParams{Name: name, Arguments: args, Meta: meta}, &raw)
	var rpcErr *wsrpc.Error
	switch {
	case err == nil:
		text, isError, resMeta := tools.RenderJSON(raw, cfg.Limits.MaxOutput)
		if resMeta[MetaNavigating] == true {
			c.leaving.Store(true)
			c.log.Debug("page navigating", zap.String("tool", name))
		}
		return tools.Answered(name, text, isError)
	case errors.Is(err, wsrpc.ErrClosed):
		return tools.Disconnected(name)
	case callCtx.Err() != nil && ctx.Err() == nil:
		return tools.TimedOut(name, errors.Is(context.Cause(callCtx), errToolMaxTime))
	case ctx.Err() != nil:
		return tools.CancelledCall(name)
	case errors.As(err, &rpcErr):
		return tools.ErrorAnswer(name, rpcErr.Message)
	default:
		return tools.CallFailed(name, err)
	}
}

// onProgress extends the deadline of the call that owns the token.
func (c *pageConn) onProgress(p ProgressParams) {
	var token string
	if err := json.Unmarshal(p.ProgressToken, &token); err != nil {
		token = string(p.ProgressToken)
	}
	c.progMu.Lock()
	extend := c.progress[token]
	c.progMu.Unlock()
	if extend != nil {
		extend()
	}
}

// defs returns the page tools as the model sees them, named through namer.
func pageDefs(list []*pageTool, namer *tools.Namer) []chat.ToolDef {
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
