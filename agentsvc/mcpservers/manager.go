// Package mcpservers runs the server-side MCP servers named in mcp.json (stdio commands and
// HTTP endpoints) through the official Go SDK, keeps their tools listed, and calls them.
package mcpservers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Defaults of Options.
const (
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxTimeout     = 10 * time.Minute
	DefaultConnectTimeout = time.Minute
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = time.Minute
	DefaultKeepAlive      = 30 * time.Second
)

// Errors returned by Call; match them with errors.Is.
var (
	ErrUnknownTool      = errors.New("mcpservers: unknown tool")
	ErrNotExposed       = errors.New("mcpservers: tool not exposed to this audience")
	ErrUnavailable      = errors.New("mcpservers: server not connected")
	ErrInvalidArguments = errors.New("mcpservers: invalid arguments")
	ErrTimeout          = errors.New("mcpservers: tool call timed out")
)

// Limits on what a server may list.
const (
	maxToolPages   = 100
	maxServerTools = 1000
)

// Options configures a Manager. Zero values mean the defaults above.
type Options struct {
	Logger *zap.Logger
	// CallTimeout bounds a call that reports no progress; each progress notification
	// starts it again. A server's "timeout" overrides it.
	CallTimeout time.Duration
	// MaxTimeout bounds a call however much progress it reports.
	MaxTimeout time.Duration
	// ConnectTimeout bounds starting a server, its handshake and its first tools/list.
	ConnectTimeout time.Duration
	// InitialBackoff is the wait before the first retry of a failed server; it doubles
	// after each failure up to MaxBackoff.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// KeepAlive is the ping interval that detects dead sessions; negative disables it.
	KeepAlive time.Duration
	// ClientName and ClientVersion are sent as clientInfo; defaults "byomcp" and "dev".
	ClientName    string
	ClientVersion string
	// HTTPTransport carries requests to URL servers; nil means http.DefaultTransport.
	HTTPTransport http.RoundTripper
	// Elicit, when set, answers a server's request for the user's input (elicitation/create,
	// in form or URL mode, including the input requests of a multi-round-trip tool call):
	// the servers are told the client can elicit. server is the server's name. While it
	// runs, that server's calls do not time out for want of progress (MaxTimeout still
	// bounds them). nil: servers are told nothing of elicitation, and cannot ask.
	Elicit Asker
	// CallsAsk tells the servers the client can elicit, and has a request for the user's
	// input go to the Asker of the call it comes during (WithAsker): the visitor of the
	// conversation whose call the server is running. See server.elicit for how a request is
	// tied to a call; one that cannot be goes to Elicit, or is declined when Elicit is nil.
	CallsAsk bool
}

// Asker answers a server's request for the user's input (elicitation/create, in form or URL
// mode); server is the server's name.
type Asker func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)

// asker is the Asker of the calls made under a context, with whose it is (a conversation).
type asker struct {
	who string
	ask Asker
}

type askerKey struct{}

// WithAsker returns ctx for calls whose servers' requests for the user's input go to ask;
// who names the one asked (a conversation's id): a request that comes while several calls
// run on one server is tied to them only when they all have the same who.
func WithAsker(ctx context.Context, who string, ask Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, &asker{who: who, ask: ask})
}

func askerOf(ctx context.Context) *asker {
	a, _ := ctx.Value(askerKey{}).(*asker)
	return a
}

func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.CallTimeout, DefaultCallTimeout)
	def(&o.MaxTimeout, DefaultMaxTimeout)
	def(&o.ConnectTimeout, DefaultConnectTimeout)
	def(&o.InitialBackoff, DefaultInitialBackoff)
	def(&o.MaxBackoff, DefaultMaxBackoff)
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.MaxBackoff < o.InitialBackoff {
		o.MaxBackoff = o.InitialBackoff
	}
	if o.CallTimeout > o.MaxTimeout {
		o.CallTimeout = o.MaxTimeout
	}
	if o.ClientName == "" {
		o.ClientName = "byomcp"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.HTTPTransport == nil {
		o.HTTPTransport = http.DefaultTransport
	}
}

// Tool is a server-side MCP tool as the agent offers it to the model. Its fields are
// shared with the Manager: read them, do not modify them.
type Tool struct {
	// ModelName is "<server>__<tool>" mapped to the model's name rules, with a short hash
	// added when another server's tool already has that name; Call takes it.
	ModelName   string
	Server      string
	Name        string
	Title       string
	Description string
	InputSchema json.RawMessage
	Annotations *mcp.ToolAnnotations
	// Meta is the tool's _meta (byomcp/summary: the confirmation card's line for a call).
	Meta map[string]any
	// UI is the tool's _meta.ui (MCP Apps): its ui:// resource and who may call it; nil
	// when it has none.
	UI *ToolUI
}

// State is where a server is in its life.
type State string

// States of a server.
const (
	StateStarting State = "starting" // first attempt under way
	StateReady    State = "ready"    // connected, tools listed
	StateRetrying State = "retrying" // failed or lost; waiting to try again
	StateClosed   State = "closed"   // Manager closed
)

// ServerStatus describes one server for `byomcp chat`, logs and health pages.
type ServerStatus struct {
	Name      string
	Transport string // TransportStdio, TransportStreamable or TransportSSE (after a fallback too)
	Expose    []string
	State     State
	Error     string // the last failure; empty while ready
	Tools     int    // usable tools (schemas that compiled)
	Attempts  int    // connection attempts so far
}

// Manager keeps one client session per configured server, reconnecting with backoff.
// Its methods are safe for concurrent use.
type Manager struct {
	log     *zap.Logger
	o       Options
	namer   *tools.Namer
	servers []*server
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	tokens  atomic.Uint64
	closed  sync.Once
	// appReads counts AppResource's cache hits and misses (tests, logs).
	appReads struct{ hit, miss atomic.Int64 }
}

// Start starts every server of cfg in the background and returns at once: a server that
// fails is logged and retried with backoff without holding up the others. Only Close
// stops them (ctx gives values, not a deadline), so calls can finish during a graceful
// shutdown. A nil cfg gives a Manager with no servers.
func Start(ctx context.Context, cfg *Config, o Options) *Manager {
	o.setDefaults()
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Manager{log: o.Logger, o: o, namer: tools.NewNamer(), cancel: cancel}
	if cfg == nil {
		cfg = &Config{}
	}
	for _, w := range cfg.Warnings {
		m.log.Warn(w)
	}
	for _, sc := range cfg.Servers {
		s := m.newServer(sc)
		m.servers = append(m.servers, s)
		m.wg.Go(func() { s.run(ctx) })
	}
	return m
}

// Close stops every server (closing stdin of commands, ending HTTP sessions) and waits
// for them. It is idempotent.
func (m *Manager) Close() {
	m.closed.Do(func() {
		m.cancel()
		m.wg.Wait()
	})
}

// WaitReady waits until every server has been tried at least once (connected or failed),
// or ctx ends. The CLI calls it before its first prompt.
func (m *Manager) WaitReady(ctx context.Context) error {
	for _, s := range m.servers {
		select {
		case <-s.tried:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Status reports every server, in name order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		s.mu.Lock()
		st := ServerStatus{
			Name:      s.cfg.Name,
			Transport: s.transport,
			Expose:    append([]string(nil), s.cfg.Expose...),
			State:     s.state,
			Tools:     len(s.tools),
			Attempts:  s.attempts,
		}
		if s.lastErr != nil && s.state != StateReady {
			st.Error = s.lastErr.Error()
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Tools lists the tools of connected servers exposed to audience (AudienceWeb or
// AudienceCLI), server by server in name order, each server's tools in its own order.
func (m *Manager) Tools(audience string) []Tool {
	var out []Tool
	for _, s := range m.servers {
		if !s.cfg.Exposed(audience) {
			continue
		}
		s.mu.Lock()
		if s.state == StateReady {
			for _, t := range s.tools {
				out = append(out, t.Tool)
			}
		}
		s.mu.Unlock()
	}
	return out
}

// ToolDefs lists the tools exposed to audience as the model sees them; with Call, a Manager
// is the agent's ServerTools.
func (m *Manager) ToolDefs(audience string) []chat.ToolDef {
	list := m.Tools(audience)
	defs := make([]chat.ToolDef, 0, len(list))
	for _, t := range list {
		if !t.UI.ForModel() { // an MCP App's own tool (visibility ["app"])
			continue
		}
		defs = append(defs, chat.ToolDef{Name: t.ModelName, Description: t.Description, Parameters: t.InputSchema})
	}
	return defs
}

// ToolAnnotations returns the annotations of the tool named modelName exposed to audience
// (nil: none, or no such tool).
func (m *Manager) ToolAnnotations(audience, modelName string) *mcp.ToolAnnotations {
	_, t, err := m.lookup(audience, modelName)
	if err != nil {
		return nil
	}
	return t.Annotations
}

// ArgumentsError is returned by Call when the arguments do not match the tool's schema;
// its message is the validator's, written for the model. It matches ErrInvalidArguments.
type ArgumentsError struct {
	Tool string // model name
	Err  error
}

// Error returns the validator's message, unchanged.
func (e *ArgumentsError) Error() string { return e.Err.Error() }

// Unwrap returns the validator's error.
func (e *ArgumentsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidArguments) true.
func (e *ArgumentsError) Is(target error) bool { return target == ErrInvalidArguments }

// Call calls the tool named modelName (as listed by Tools) for audience. It refuses a tool
// not exposed to audience (ErrNotExposed), validates args against the tool's schema before
// anything is sent (*ArgumentsError), and applies the server's timeout, restarted by each
// progress notification and capped by MaxTimeout (ErrTimeout; the server is sent
// notifications/cancelled). The result is the server's, content intact; a result with
// IsError is a tool error, not a Go error.
func (m *Manager) Call(ctx context.Context, audience, modelName string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s, t, err := m.lookup(audience, modelName)
	if err != nil {
		return nil, err
	}
	if !t.UI.ForModel() {
		return nil, fmt.Errorf("%w: %q is only for its server's apps", ErrNotExposed, modelName)
	}
	return m.callTool(ctx, s, t, args)
}

// callTool validates args and calls t on s.
func (m *Manager) callTool(ctx context.Context, s *server, t *tool, args json.RawMessage) (*mcp.CallToolResult, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := t.schema.Validate(ctx, args); err != nil {
		return nil, &ArgumentsError{Tool: t.ModelName, Err: err}
	}
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnavailable, s.cfg.Name)
	}
	return m.callWithTimeout(ctx, s, cs, t, args)
}

func (m *Manager) lookup(audience, modelName string) (*server, *tool, error) {
	for _, s := range m.servers {
		s.mu.Lock()
		for _, t := range s.tools {
			if t.ModelName == modelName {
				s.mu.Unlock()
				if !s.cfg.Exposed(audience) {
					return nil, nil, fmt.Errorf("%w: %q is not available to %s", ErrNotExposed, modelName, audience)
				}
				return s, t, nil
			}
		}
		s.mu.Unlock()
	}
	// Not listed now: a tool of a server that is down keeps its model name in the namer.
	if key, ok := m.namer.Original(modelName); ok {
		for _, s := range m.servers {
			if s.cfg.Name == keyServer(key) {
				if !s.cfg.Exposed(audience) {
					return nil, nil, fmt.Errorf("%w: %q is not available to %s", ErrNotExposed, modelName, audience)
				}
				s.mu.Lock()
				state, lastErr := s.state, s.lastErr
				s.mu.Unlock()
				if state != StateReady {
					if lastErr != nil {
						return nil, nil, fmt.Errorf("%w: %q is %s (%v)", ErrUnavailable, s.cfg.Name, state, lastErr)
					}
					return nil, nil, fmt.Errorf("%w: %q is %s", ErrUnavailable, s.cfg.Name, state)
				}
			}
		}
	}
	return nil, nil, fmt.Errorf("%w: %q", ErrUnknownTool, modelName)
}

// timeoutError is the cause of a call's cancellation by its deadline.
type timeoutError struct {
	tool  string
	after time.Duration
	max   bool
}

func (e *timeoutError) Error() string {
	if e.max {
		return fmt.Sprintf("mcpservers: tool %q did not finish within the maximum of %v", e.tool, e.after)
	}
	return fmt.Sprintf("mcpservers: tool %q timed out after %v without progress", e.tool, e.after)
}

func (e *timeoutError) Is(target error) bool { return target == ErrTimeout }

func (m *Manager) callWithTimeout(ctx context.Context, s *server, cs *mcp.ClientSession, t *tool, args json.RawMessage) (*mcp.CallToolResult, error) {
	idle := s.timeout
	token := fmt.Sprintf("byomcp-%d", m.tokens.Add(1))
	progress := s.watchProgress(token, askerOf(ctx))
	defer s.unwatchProgress(token)

	callCtx, cancel := context.WithCancelCause(ctx)
	var watcher sync.WaitGroup
	defer watcher.Wait()
	defer cancel(nil)
	watcher.Go(func() {
		idleTimer := time.NewTimer(idle)
		defer idleTimer.Stop()
		hardTimer := time.NewTimer(m.o.MaxTimeout)
		defer hardTimer.Stop()
		for {
			select {
			case <-progress:
				idleTimer.Reset(idle)
			case <-idleTimer.C:
				if s.asking.Load() > 0 { // the server waits for the user's answer
					s.log.Debug("a call's idle time passed while the user is asked; it waits", zap.String("tool", t.Name))
					idleTimer.Reset(idle)
					continue
				}
				cancel(&timeoutError{tool: t.ModelName, after: idle})
				return
			case <-hardTimer.C:
				cancel(&timeoutError{tool: t.ModelName, after: m.o.MaxTimeout, max: true})
				return
			case <-callCtx.Done():
				return
			}
		}
	})

	params := &mcp.CallToolParams{Name: t.Name, Arguments: args}
	params.SetProgressToken(token)
	log := s.log.With(zap.String("tool", t.Name))
	log.Debug("calling tool", zap.ByteString("arguments", args))
	res, err := cs.CallTool(callCtx, params)
	if err != nil {
		if cause := context.Cause(callCtx); ctx.Err() == nil && errors.Is(cause, ErrTimeout) {
			log.Info("tool call timed out", zap.Error(cause))
			return nil, cause
		}
		return nil, fmt.Errorf("mcpservers: calling %s on %q: %w", t.Name, s.cfg.Name, err)
	}
	log.Debug("tool call done", zap.Bool("isError", res.IsError))
	return res, nil
}
