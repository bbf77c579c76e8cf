// Package pagemcp is the agent's MCP client of one page: the initialize handshake, the
// page's tools (listed, re-listed on list_changed, compiled and checked one by one) and
// tools/call with its timeouts, progress and confirmation. It knows no session and no server.
package pagemcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/jsonerr"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Options configure a Client. Zero durations and sizes take the defaults noted.
type Options struct {
	ClientInfo       wire.Implementation // sent in initialize
	HandshakeTimeout time.Duration       // initialize, and each (re-)listing; default 10 s
	RelistDebounce   time.Duration       // after tools/list_changed; default 100 ms
	ToolTimeout      time.Duration       // per tool call, extended by progress; default 30 s
	ToolMaxTimeout   time.Duration       // hard maximum per tool call; default 10 min
	MaxOutput        int                 // bytes of one result given to the model; default tools.DefaultMaxOutput
	MaxTools         int                 // tools admitted for the model (tools.DefBudget); default 128
	// Schemas compiles the tools' input schemas; share one between clients (nil: one of the
	// client's own).
	Schemas *SchemaCache
	// Defs interns the tools' definitions; share one between clients, so that the tabs of
	// one page hold one copy of its tools (nil: one of the client's own).
	Defs *DefCache
	// Confirm tells whether the user must confirm each call of a tool, besides the tools the
	// page marks destructive (nil: none).
	Confirm func(name string) bool
	// ServerTools lists the model-facing names of the server tools the page's conversation
	// is offered (nil: none). They keep their names: a page tool whose model-facing name
	// (tools.ModelName) is one of them is rejected ("a server tool has this name"), so the
	// model's calls of that name always go to the server.
	ServerTools func() []string
	// OnRejected is told of a page tool that cannot be used, once per name and reason, as
	// soon as it is found (the agent sends tool_rejected). A listing reports at most
	// MaxRejectedReports tools one by one; when more are rejected, the first of the rest is
	// reported with a reason that also counts and names the others (see reportRejected).
	// It is called from the goroutine that lists, so it may wait for room to send.
	OnRejected func(name, reason string)
	// OnPanic is told of a panic recovered in the client's re-list goroutine, after it was
	// logged with its stack; the socket is then closed with 1011.
	OnPanic func(where string, v any)
	Logger  *zap.Logger
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HandshakeTimeout, 10*time.Second)
	def(&o.RelistDebounce, 100*time.Millisecond)
	def(&o.ToolTimeout, 30*time.Second)
	def(&o.ToolMaxTimeout, 10*time.Minute)
	if o.MaxTools <= 0 {
		o.MaxTools = 128
	}
	if o.Schemas == nil {
		o.Schemas = NewSchemaCache(256)
	}
	if o.Defs == nil {
		o.Defs = NewDefCache(256)
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}

// Tool is one usable tool of the page. Its definition's strings and schema bytes are shared
// with every other page that lists the same definition (DefCache), its compiled schema with
// every page that has the same schema (SchemaCache).
type Tool struct {
	wire.PageTool
	schema  *tools.Schema
	confirm bool // the user must confirm each call
}

// Client is the MCP client of one page socket's tools.
//
// Its registry is replaced as a whole on each (re-)listing; readers take the current one
// under mu.
//
// Owners: the handshake goroutine does the first listing and then fires markListed (a
// sync.OnceFunc, so listed is closed exactly once whatever path ends the handshake). Every
// later listing is done by one re-list goroutine at a time (relistLoop), started by the
// first notifications/tools/list_changed while none runs; it alone closes the relistDone
// channel it took, once no re-list is due any more, and clears relistRunning under mu
// before it returns.
//
// Lock order: mu and progMu are leaves, never held together; no call to the page is made
// under either, and no callback is called under either.
type Client struct {
	peer *wsrpc.Peer
	o    Options
	log  *zap.Logger

	listed     chan struct{} // closed once the first listing is done (or failed)
	markListed func()        // closes listed, once

	mu            sync.Mutex
	tools         []*Tool           // in the page's order (at most MaxTools: found by a scan)
	relistDone    chan struct{}     // non-nil while a re-list is due or running; closed by relistLoop
	relistDue     time.Time         // when the due re-list may start (debounce); zero: none due
	relistRunning bool              // a relistLoop goroutine runs
	changed       chan struct{}     // closed by the next tools/list_changed (nil until AwaitTools waits)
	rejected      map[string]string // tool name → reason, already reported (nil until one is; at most maxRememberedRejections)

	// leaving is set when a tool result said the page is navigating away.
	leaving atomic.Bool

	progMu   sync.Mutex
	progress map[string]func(message string) // progress token → note its message, extend the call's deadline (nil until a call)

	nextToken atomic.Int64
}

// New returns the client of the page on peer and registers the page's MCP notifications
// (tools/list_changed, progress) on it. Call it before the peer starts reading, then
// Handshake.
func New(peer *wsrpc.Peer, o Options) *Client {
	o = o.withDefaults()
	listed := make(chan struct{})
	c := &Client{
		peer:       peer,
		o:          o,
		log:        o.Logger,
		listed:     listed,
		markListed: sync.OnceFunc(func() { close(listed) }),
	}
	peer.HandleNotification(wire.MethodToolsListChanged, func(context.Context, *wsrpc.Request) { c.onListChanged() })
	peer.HandleNotification(wire.MethodProgress, func(_ context.Context, req *wsrpc.Request) { c.onProgress(req.Params) })
	return c
}

// Handshake runs initialize → notifications/initialized → tools/list. A page that answers
// with an unsupported protocol version, or does not answer initialize in time, gets an
// error that says so (initialize is never cancelled: MCP). A page that declares no tools
// capability is not asked for tools, and one whose listing fails is used without tools
// (until it announces a change), as a page that has none.
func (c *Client) Handshake(ctx context.Context) error {
	defer c.markListed() // whatever happens: Ready and the re-list loop wait for it
	ctx, cancel := context.WithTimeout(ctx, c.o.HandshakeTimeout)
	defer cancel()
	var res wire.InitializeResult
	err := c.peer.Call(wsrpc.WithoutCancelNotice(ctx), wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersion: wire.ProtocolVersion,
		Capabilities:    map[string]any{},
		ClientInfo:      c.o.ClientInfo,
	}, &res)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("the page did not answer initialize within %v: %w", c.o.HandshakeTimeout, err)
		}
		return fmt.Errorf("initialize: %w", err)
	}
	if !wire.Supported(res.ProtocolVersion) {
		return fmt.Errorf("the page speaks MCP %q; this agent supports %v", res.ProtocolVersion, wire.SupportedVersions)
	}
	if err := c.peer.Notify(ctx, wire.MethodInitialized, map[string]any{}); err != nil {
		return err
	}
	if !declaresTools(res.Capabilities) {
		c.log.Debug("the page declares no tools capability: used without tools")
		return nil
	}
	if err := c.list(ctx); err != nil {
		if errors.Is(err, wsrpc.ErrClosed) {
			return err
		}
		c.log.Warn("listing page tools failed: the page is used without tools until it announces a change", zap.Error(err))
		c.reportListFailed(err)
	}
	return nil
}

// ListRejectedName is the name OnRejected is told when a whole tools/list could not be used
// (no page tool can have it: a tool name has no "/"). Its reason says why.
const ListRejectedName = "tools/list"

// reportListFailed tells the page (OnRejected, under ListRejectedName) that a listing failed
// and why, once per reason, like a rejected tool: a page whose tools/list the agent cannot
// take (endless pagination, JSON nested too deep, a result of another shape, an error, no
// answer) is otherwise served without its new tools and its developer sees nothing. A
// listing that fails because the socket closed is not reported: nobody is left to tell.
func (c *Client) reportListFailed(err error) {
	if errors.Is(err, wsrpc.ErrClosed) {
		return
	}
	reason := "tools/list could not be used: " + listFailure(err) +
		"; the tools listed before (if any) are kept until the next notifications/tools/list_changed"
	c.mu.Lock()
	known := c.rejected[ListRejectedName] == reason
	if !known {
		if c.rejected == nil {
			c.rejected = map[string]string{}
		}
		c.rejected[ListRejectedName] = reason
	}
	c.mu.Unlock()
	if known || c.o.OnRejected == nil {
		return
	}
	c.o.OnRejected(ListRejectedName, reason)
}

// listFailure says why a listing failed, in the page's terms.
func listFailure(err error) string {
	var rpcErr *wsrpc.Error
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errTooManyPages):
		return errTooManyPages.Error()
	case errors.As(err, &rpcErr):
		return fmt.Sprintf("the page answered with error %d: %s", rpcErr.Code, rpcErr.Message)
	case errors.As(err, &syntax) && strings.HasSuffix(syntax.Error(), "exceeded max depth"):
		return "the result is JSON nested more than 10,000 levels deep (exceeded max depth)"
	case errors.As(err, &syntax):
		return "the result is not usable JSON: " + syntax.Error()
	case errors.As(err, &typ):
		return "the result is not a tools/list result: " + jsonerr.Describe("", typ)
	case errors.Is(err, context.DeadlineExceeded):
		return "the page did not answer in time"
	default:
		return err.Error()
	}
}

// declaresTools reports whether an initialize result's capabilities has tools.
func declaresTools(capabilities json.RawMessage) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(capabilities, &caps) != nil {
		return false
	}
	t, ok := caps["tools"]
	return ok && string(t) != "null"
}

// maxListPages bounds pagination so a page cannot keep the agent listing forever.
const maxListPages = 64

// errTooManyPages fails a listing whose nextCursor still comes after maxListPages pages.
var errTooManyPages = fmt.Errorf("more than %d pages (a nextCursor after each)", maxListPages)

// rawToolsList is wire.ToolsListResult with each tool's definition left undecoded, so that
// a definition seen before is taken from the DefCache instead of decoded again.
type rawToolsList struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// list fetches every page of tools/list and replaces the registry.
func (c *Client) list(ctx context.Context) error {
	var all []*wire.PageTool
	var undecoded []rejection // entries that are no tool definition: rejected alone
	cursor := ""
	for i := 0; ; i++ {
		if i == maxListPages {
			return fmt.Errorf("tools/list: %w", errTooManyPages)
		}
		var res rawToolsList
		if err := c.peer.Call(ctx, wire.MethodToolsList, wire.ToolsListParams{Cursor: cursor}, &res); err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		for _, raw := range res.Tools {
			t, err := c.o.Defs.Decode(raw)
			if err != nil {
				// One malformed entry (a number, "annotations": "junk") is that tool's
				// problem: the page's other tools are kept, as for an unusable schema.
				undecoded = append(undecoded, rejection{undecodedName(raw, len(all)+len(undecoded)), "not a tool definition: " + jsonerr.Describe("", err)})
				continue
			}
			all = append(all, t)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	c.setTools(all, undecoded)
	return nil
}

// undecodedName names an entry of tools/list that is no tool definition in the reports: its
// "name" when that is a string, else its position ("tools[3]").
func undecodedName(raw json.RawMessage, i int) string {
	var named struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &named) == nil {
		if n, ok := named.Name.(string); ok && n != "" {
			return n
		}
	}
	return fmt.Sprintf("tools[%d]", i)
}

// MaxRejectedReports is the most rejected tools one listing reports one by one (OnRejected);
// the others are reported together, in one more report. A page listing thousands of tools
// thus causes at most MaxRejectedReports+1 tool_rejected events, far fewer than a socket's
// send queue holds: one event per tool filled it and dropped the page.
const MaxRejectedReports = 100

// rejectedNamed is how many of the tools reported together are named in the report.
const rejectedNamed = 5

// maxRememberedRejections bounds the rejections a client remembers so as not to report them
// again (Client.rejected): past it, a new one is reported on each listing that has it (still
// within MaxRejectedReports+1 reports per listing).
const maxRememberedRejections = 4096

// rejection is a page tool that cannot be used, and why.
type rejection struct{ name, reason string }

// setTools compiles and installs a new tool list; unusable tools are rejected one by one,
// after rejects (the listing's entries that were no definition). The definitions in list are
// shared (DefCache): each Tool copies the one it changes.
func (c *Client) setTools(list []*wire.PageTool, rejects []rejection) {
	byName := make(map[string]*Tool, len(list)) // for this listing only: duplicates
	kept := make([]*Tool, 0, len(list))
	budget := tools.NewDefBudget(c.o.MaxTools) // what reaches the model, bounded before compiling
	var server map[string]bool
	if c.o.ServerTools != nil {
		names := c.o.ServerTools()
		server = make(map[string]bool, len(names))
		for _, n := range names {
			server[n] = true
		}
	}
	for _, def := range list {
		t := *def // the strings and the schema's bytes stay shared
		reason := ""
		var sch *tools.Schema
		switch {
		case !tools.ValidPageName(t.Name):
			reason = "name must be 1-128 characters of A-Z a-z 0-9 _ . -"
		case byName[t.Name] != nil:
			reason = "duplicate tool name"
		case server[tools.ModelName(t.Name)]:
			reason = "a server tool has this name: rename the page's tool"
		default:
			if t.Description == "" {
				t.Description = t.Title // what Defs sends
			}
			if t.Description, reason = budget.Admit(t.Name, t.Description, t.InputSchema); reason != "" {
				break
			}
			var err error
			if sch, err = c.o.Schemas.Compile(t.InputSchema); err != nil {
				reason = err.Error()
			}
		}
		if reason != "" {
			rejects = append(rejects, rejection{t.Name, reason})
			continue
		}
		pt := &Tool{PageTool: t, schema: sch}
		pt.confirm = needsConfirm(t.Annotations) || (c.o.Confirm != nil && c.o.Confirm(t.Name))
		byName[t.Name] = pt
		kept = append(kept, pt)
	}
	kept = slices.Clip(kept)
	c.mu.Lock()
	c.tools = kept
	delete(c.rejected, ListRejectedName) // listed: a later failure is news again
	var fresh []rejection
	for _, r := range rejects {
		if c.rejected[r.name] != r.reason {
			if c.rejected == nil {
				c.rejected = map[string]string{}
			}
			if _, known := c.rejected[r.name]; known || len(c.rejected) < maxRememberedRejections {
				c.rejected[r.name] = r.reason
			}
			fresh = append(fresh, r)
		}
	}
	c.mu.Unlock()
	c.reportRejected(fresh)
	c.log.Debug("page tools listed", zap.Int("tools", len(kept)), zap.Int("rejected", len(rejects)))
}

// reportRejected logs and reports (OnRejected) the new rejections of one listing, in the
// page's order: the first MaxRejectedReports one by one, and when more are left, the first
// of them with its reason followed by how many others there are and the names of a few
// ("… (and 771 more rejected tools, not reported one by one: t_230, t_231, …)"). Every
// tool it stands for counts as reported, so listing them again reports nothing.
func (c *Client) reportRejected(fresh []rejection) {
	report := func(name, reason string) {
		if c.o.OnRejected != nil {
			c.o.OnRejected(name, reason)
		}
	}
	var rest []rejection // reported together
	if len(fresh) > MaxRejectedReports+1 {
		fresh, rest = fresh[:MaxRejectedReports], fresh[MaxRejectedReports:]
	}
	for _, r := range fresh {
		c.log.Warn("page tool rejected", zap.String("tool", r.name), zap.String("reason", r.reason))
		report(r.name, r.reason)
	}
	if len(rest) == 0 {
		return
	}
	first, others := rest[0], rest[1:]
	names := make([]string, 0, rejectedNamed)
	for _, r := range others[:min(len(others), rejectedNamed)] {
		names = append(names, r.name)
	}
	list := strings.Join(names, ", ")
	if len(others) > len(names) {
		list += ", …"
	}
	c.log.Warn("page tools rejected", zap.String("tool", first.name), zap.String("reason", first.reason),
		zap.Int("more", len(others)), zap.Strings("more_tools", names))
	report(first.name, fmt.Sprintf("%s (and %d more rejected tools, not reported one by one: %s)", first.reason, len(others), list))
}

// onListChanged (read goroutine) makes a re-list due, RelistDebounce from the first change
// not yet listed, and starts the re-list goroutine when none runs. Model calls wait for it
// (Ready). A change during a listing makes another listing due after it, so the tools end
// as the page's latest.
func (c *Client) onListChanged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	if c.relistDone == nil {
		c.relistDone = make(chan struct{})
	}
	if c.relistDue.IsZero() {
		c.relistDue = time.Now().Add(c.o.RelistDebounce)
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
func (c *Client) relistLoop() {
	ended := false
	defer func() { // the socket ended, or a panic stopped the loop
		if !ended {
			c.mu.Lock()
			c.endRelistLocked()
			c.mu.Unlock()
		}
	}()
	defer c.recoverRelist()
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
		ctx, cancel := context.WithTimeout(context.Background(), c.o.HandshakeTimeout)
		err := c.list(ctx)
		cancel()
		if err != nil {
			c.log.Warn("re-listing page tools", zap.Error(err))
			c.reportListFailed(err)
		}
	}
}

// recoverRelist is deferred by relistLoop: a panic is logged, reported and ends the socket
// with 1011; the process and the other sockets go on.
func (c *Client) recoverRelist() {
	if v := recover(); v != nil {
		c.log.Error("recovered a panic", zap.String("where", "relist"), zap.Any("panic", v), zap.Stack("stack"))
		if c.o.OnPanic != nil {
			c.o.OnPanic("relist", v)
		}
		c.peer.CloseWithStatus(1011, "internal error")
	}
}

// endRelistLocked closes relistDone and marks the loop ended; c.mu is held by relistLoop,
// the channel's only closer. The next list_changed starts a new loop with a new channel.
func (c *Client) endRelistLocked() {
	if c.relistDone != nil {
		close(c.relistDone)
		c.relistDone = nil
	}
	c.relistDue = time.Time{}
	c.relistRunning = false
}

// Ready waits (bounded by ctx) until the first listing and any due re-list are done.
func (c *Client) Ready(ctx context.Context) {
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

// AwaitTools waits, bounded by ctx, until the page has listed at least one tool: for a page
// that registers its tools only once its data has loaded (it says so with
// tools/list_changed, and the re-list that follows is waited for). It returns at once when
// the page already has tools.
func (c *Client) AwaitTools(ctx context.Context) {
	for {
		c.Ready(ctx)
		c.mu.Lock()
		if len(c.tools) > 0 {
			c.mu.Unlock()
			return
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-c.peer.Done():
			return
		}
	}
}

// Tools returns the current tools, in the page's order.
func (c *Client) Tools() []*Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

func (c *Client) tool(name string) *Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Leaving tells whether a tool result said the page is navigating away.
func (c *Client) Leaving() bool { return c.leaving.Load() }

// errors a page tool call's timers end it with (context causes).
var (
	errToolTimeout = errors.New("the tool did not answer in time")
	errToolMaxTime = errors.New("the tool ran past its hard time limit")
)

// needsConfirm tells whether the page's annotations ask for the visitor's confirmation:
// MCP's destructiveHint or WebMCP's consequentialHint. The page's widget asks either way;
// the agent marks the call too (byomcp/confirm), so a page that forgets still asks.
func needsConfirm(a *wire.ToolAnnotations) bool {
	return a != nil && ((a.DestructiveHint != nil && *a.DestructiveHint) || a.ConsequentialHint)
}
