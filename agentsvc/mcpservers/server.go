package mcpservers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/tools"
)

// server is one configured MCP server and its current session. One goroutine (run) owns
// the session's life: it connects, lists tools, re-lists on list_changed, notices the
// session's end and reconnects with backoff. Call only reads the session under mu.
type server struct {
	m       *Manager
	cfg     ServerConfig
	log     *zap.Logger
	timeout time.Duration
	client  *mcp.Client
	// asking counts the requests for the user's input (Options.Elicit) under way: while
	// any is, the server's calls do not time out for want of progress.
	asking  atomic.Int32
	relist  chan struct{} // buffer 1: list_changed notifications coalesce
	tried   chan struct{} // closed after the first attempt
	tryOnce sync.Once
	stderr  *tailWriter // stdio servers' standard error

	mu        sync.Mutex
	state     State
	lastErr   error
	attempts  int
	transport string
	useSSE    bool // a URL server answered only the old HTTP+SSE transport
	session   *mcp.ClientSession
	tools     []*tool
	progress  map[string]chan struct{} // running calls by progress token
	askers    map[string]*asker        // the running calls' askers (WithAsker), by progress token
	apps      map[string]*AppResource  // MCP Apps' resources read, by URI (apps.go)
	appGen    int                      // bumped whenever apps is dropped
	appSubs   map[string]bool          // the resources subscribed to in this session
}

// tool is a listed tool with its compiled input schema.
type tool struct {
	Tool
	schema *tools.Schema
}

func (m *Manager) newServer(cfg ServerConfig) *server {
	s := &server{
		m:         m,
		cfg:       cfg,
		log:       m.log.With(zap.String("mcpServer", cfg.Name)),
		timeout:   m.o.CallTimeout,
		relist:    make(chan struct{}, 1),
		tried:     make(chan struct{}),
		state:     StateStarting,
		transport: cfg.Transport,
		progress:  map[string]chan struct{}{},
		askers:    map[string]*asker{},
		apps:      map[string]*AppResource{},
	}
	if cfg.Timeout > 0 {
		s.timeout = min(cfg.Timeout, m.o.MaxTimeout)
	}
	if cfg.Transport == TransportStdio {
		s.stderr = &tailWriter{log: s.log}
	}
	keepAlive := m.o.KeepAlive
	if keepAlive < 0 {
		keepAlive = 0
	}
	opts := &mcp.ClientOptions{
		// No roots or sampling: the agent offers servers calls, and elicitation when
		// Options.Elicit is set.
		Capabilities: &mcp.ClientCapabilities{},
		KeepAlive:    keepAlive,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.relist <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler:     func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { s.dropApps() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.dropApps() },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if token, ok := req.Params.ProgressToken.(string); ok {
				s.progressed(token)
			}
		},
	}
	appCapabilities(opts.Capabilities)
	if m.o.Elicit != nil || m.o.CallsAsk {
		opts.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
		opts.ElicitationHandler = s.elicit
	}
	s.client = mcp.NewClient(&mcp.Implementation{Name: m.o.ClientName, Version: m.o.ClientVersion}, opts)
	return s
}

// elicit answers the server's request for the user's input. It goes to the asker of the call
// it comes during: go-sdk asks with the call's own context for the input a multi-round-trip
// result or a URLElicitationRequired error asks for; a request the server sends on its own
// (elicitation/create) carries no call, and goes to the asker of the server's running calls
// when they all have one and the same (one conversation's). Otherwise Options.Elicit answers
// it (the terminal's one user), or, with none, it is declined: a question is never shown to
// a visitor who may not be the one whose call asks it.
func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	s.asking.Add(1)
	defer func() {
		s.asking.Add(-1)
		s.progressedAll() // the calls' idle time starts again from the answer
	}()
	ask := s.m.o.Elicit
	if a := askerOf(ctx); a != nil {
		ask = a.ask
	} else if a, mixed := s.callsAsker(); a != nil {
		ask = a.ask
	} else if mixed || ask == nil {
		s.log.Warn("declined a request for the user's input that no single conversation's call can be asked for")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return ask(ctx, s.cfg.Name, req.Params)
}

// callsAsker is the asker of the server's running calls when those that have one all have
// the same who and none lacks one; mixed: their askers differ, or some have none.
func (s *server) callsAsker() (a *asker, mixed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	without := 0
	for token := range s.progress {
		b := s.askers[token]
		switch {
		case b == nil:
			without++
		case a == nil:
			a = b
		case a.who != b.who:
			return nil, true
		}
	}
	if a != nil && without > 0 {
		return nil, true
	}
	return a, false
}

func (s *server) markTried() { s.tryOnce.Do(func() { close(s.tried) }) }

// run connects and reconnects until ctx ends.
func (s *server) run(ctx context.Context) {
	defer s.markTried()
	backoff := s.m.o.InitialBackoff
	for {
		sessCtx, endSession := context.WithCancel(ctx)
		cs, err := s.connect(sessCtx)
		if err != nil {
			endSession()
			if ctx.Err() != nil {
				s.setClosed()
				return
			}
			s.mu.Lock()
			s.state, s.lastErr = StateRetrying, err
			attempts := s.attempts
			s.mu.Unlock()
			s.log.Warn("MCP server failed to start; will retry",
				zap.Error(err), zap.Int("attempt", attempts), zap.Duration("retryIn", backoff))
			s.markTried()
		} else {
			s.markTried()
			started := time.Now()
			err = s.serve(ctx, cs)
			endSession()
			if ctx.Err() != nil {
				s.setClosed()
				return
			}
			if time.Since(started) >= s.m.o.MaxBackoff {
				backoff = s.m.o.InitialBackoff // it ran well for a while: start over
			}
			if err == nil {
				err = errors.New("session ended")
			}
			s.mu.Lock()
			s.state, s.lastErr = StateRetrying, fmt.Errorf("connection lost: %w", err)
			s.mu.Unlock()
			s.log.Warn("MCP server connection lost; reconnecting", zap.Error(err), zap.Duration("retryIn", backoff))
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			s.setClosed()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, s.m.o.MaxBackoff)
	}
}

func (s *server) setClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.session, s.tools = StateClosed, nil, nil
}

// connect starts the server, does the handshake and lists its tools, all within
// ConnectTimeout. ctx stays the session's context afterwards (the SSE transport ties its
// stream to it), so the deadline is a timer, not a context deadline.
func (s *server) connect(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(s.m.o.ConnectTimeout, func() {
		cancel(fmt.Errorf("no answer within %v", s.m.o.ConnectTimeout))
	})
	defer timer.Stop()
	fail := func(err error) error {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("%v: %w", cause, err)
		}
		return err
	}

	cs, err := s.dial(ctx)
	if err != nil {
		return nil, fail(err)
	}
	list, err := s.listTools(ctx, cs)
	if err != nil {
		cs.Close()
		return nil, fail(fmt.Errorf("listing tools: %w", err))
	}
	if !timer.Stop() {
		cs.Close()
		return nil, fail(errors.New("connect timed out"))
	}
	s.dropApps() // a new session may serve other resources under the same URIs
	s.mu.Lock()
	s.appSubs = map[string]bool{}
	s.session, s.tools, s.state, s.lastErr = cs, list, StateReady, nil
	transport := s.transport
	s.mu.Unlock()
	info := cs.InitializeResult()
	fields := []zap.Field{zap.String("transport", transport), zap.Int("tools", len(list))}
	if info != nil && info.ServerInfo != nil {
		fields = append(fields, zap.String("server", info.ServerInfo.Name), zap.String("version", info.ServerInfo.Version))
	}
	if info != nil {
		fields = append(fields, zap.String("protocol", info.ProtocolVersion))
	}
	s.log.Info("MCP server ready", fields...)
	return cs, nil
}

// serve watches a connected session: it re-lists tools on list_changed and returns when
// the session ends (with why) or ctx ends (after closing the session).
func (s *server) serve(ctx context.Context, cs *mcp.ClientSession) error {
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	defer func() {
		s.mu.Lock()
		s.session, s.tools = nil, nil
		s.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			cs.Close()
			<-ended
			return nil
		case err := <-ended:
			cs.Close() // releases the transport (a still running process, an HTTP session)
			return err
		case <-s.relist:
			lctx, cancel := context.WithTimeout(ctx, s.m.o.ConnectTimeout)
			list, err := s.listTools(lctx, cs)
			cancel()
			if err != nil {
				s.log.Warn("re-listing tools after list_changed failed; keeping the previous list", zap.Error(err))
				continue
			}
			s.mu.Lock()
			same := slices.EqualFunc(s.tools, list, func(a, b *tool) bool {
				return a.ModelName == b.ModelName && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
			})
			s.tools = list
			s.mu.Unlock()
			if !same {
				s.log.Info("MCP server tools changed", zap.Int("tools", len(list)))
			}
		}
	}
}

// dial opens the transport and does the MCP handshake.
func (s *server) dial(ctx context.Context) (*mcp.ClientSession, error) {
	if s.cfg.transport != nil { // tests
		t, err := s.cfg.transport()
		if err != nil {
			return nil, err
		}
		return s.client.Connect(ctx, t, nil)
	}
	switch s.cfg.Transport {
	case TransportStdio:
		return s.dialStdio(ctx)
	case TransportSSE:
		return s.client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(nil)}, nil)
	default:
		return s.dialHTTP(ctx)
	}
}

func (s *server) dialStdio(ctx context.Context) (*mcp.ClientSession, error) {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = childEnv(os.Environ(), s.cfg.Env)
	s.stderr.reset()
	cmd.Stderr = s.stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr open must not hold up Close
	cs, err := s.client.Connect(ctx, &stdioTransport{cmd: cmd, log: s.log}, nil)
	if err != nil {
		if tail := s.stderr.tail(); tail != "" {
			return nil, fmt.Errorf("starting %q: %w (stderr: %s)", s.cfg.Command, err, tail)
		}
		return nil, fmt.Errorf("starting %q: %w", s.cfg.Command, err)
	}
	return cs, nil
}

// inheritedEnv are the variables a stdio server gets from the service's environment, as
// Claude Desktop and the TypeScript SDK do: enough to find and run programs, and nothing
// like API keys. Everything else must be named in the server's "env".
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// childEnv builds a stdio server's environment from the service's (environ) and the
// configured variables, which win.
func childEnv(environ []string, extra map[string]string) []string {
	var env []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(inheritedEnv, k) {
			if _, overridden := extra[k]; !overridden {
				env = append(env, kv)
			}
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// dialHTTP tries Streamable HTTP and, when the server answers its POST with a 4xx that
// an old server gives (404, 405, 400...), the 2024-11-05 HTTP+SSE transport.
func (s *server) dialHTTP(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	useSSE := s.useSSE
	s.mu.Unlock()
	if useSSE {
		return s.client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(nil)}, nil)
	}
	var lastPOST atomic.Int32
	cs, err := s.client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(&lastPOST)}, nil)
	if err == nil {
		return cs, nil
	}
	status := int(lastPOST.Load())
	if !oldServerStatus(status) || ctx.Err() != nil {
		if status != 0 {
			return nil, fmt.Errorf("streamable HTTP (HTTP %d): %w", status, err)
		}
		return nil, fmt.Errorf("streamable HTTP: %w", err)
	}
	s.log.Debug("streamable HTTP refused; trying the HTTP+SSE transport", zap.Int("status", status), zap.Error(err))
	cs, sseErr := s.client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(nil)}, nil)
	if sseErr != nil {
		return nil, fmt.Errorf("streamable HTTP (HTTP %d): %v; HTTP+SSE fallback: %w", status, err, sseErr)
	}
	s.mu.Lock()
	s.useSSE, s.transport = true, TransportSSE
	s.mu.Unlock()
	s.log.Info("MCP server speaks only the old HTTP+SSE transport; using it")
	return cs, nil
}

// oldServerStatus reports whether a POST's status says "no Streamable HTTP here" rather
// than "not allowed" or "busy".
func oldServerStatus(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestTimeout, http.StatusTooManyRequests:
		return false
	}
	return code >= 400 && code < 500
}

// httpClient adds the configured headers to every request and records the status of the
// last POST in lastPOST (when non-nil). No client timeout: SSE streams live long.
func (s *server) httpClient(lastPOST *atomic.Int32) *http.Client {
	return &http.Client{Transport: &headerTransport{base: s.m.o.HTTPTransport, headers: s.cfg.Headers, lastPOST: lastPOST}}
}

type headerTransport struct {
	base     http.RoundTripper
	headers  map[string]string
	lastPOST *atomic.Int32
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			if req.Header.Get(k) == "" { // the SDK's own protocol headers win
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && h.lastPOST != nil && req.Method == http.MethodPost {
		h.lastPOST.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// listTools lists every page of tools and compiles their schemas; a tool whose schema does
// not compile, or whose name repeats, is skipped with a log line.
func (s *server) listTools(ctx context.Context, cs *mcp.ClientSession) ([]*tool, error) {
	var out []*tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, fmt.Errorf("more than %d pages of tools", maxToolPages)
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			if len(out) == maxServerTools {
				s.log.Warn("server lists too many tools; ignoring the rest", zap.Int("max", maxServerTools))
				return out, nil
			}
			if t.Name == "" || seen[t.Name] {
				s.log.Warn("skipping tool with an empty or repeated name", zap.String("tool", t.Name))
				continue
			}
			seen[t.Name] = true
			raw, err := json.Marshal(t.InputSchema)
			if err != nil {
				s.log.Warn("skipping tool: inputSchema is not JSON", zap.String("tool", t.Name), zap.Error(err))
				continue
			}
			schema, err := tools.CompileSchema(raw)
			if err != nil {
				s.log.Warn("skipping tool: its inputSchema does not compile", zap.String("tool", t.Name), zap.Error(err))
				continue
			}
			out = append(out, &tool{
				Tool: Tool{
					ModelName:   s.m.namer.AssignAs(toolKey(s.cfg.Name, t.Name), s.cfg.Name+"__"+t.Name),
					Server:      s.cfg.Name,
					Name:        t.Name,
					Title:       toolTitle(t),
					Description: t.Description,
					InputSchema: raw,
					Annotations: t.Annotations,
					Meta:        t.Meta,
					UI:          toolUI(t.Meta),
				},
				schema: schema,
			})
		}
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
}

// toolKey is a tool's key in the Manager's namer. The joined "<server>__<tool>" is only
// the preferred model name: server "a" with tool "b__echo" and server "a__b" with tool
// "echo" both join to "a__b__echo". A server name has no control characters, so the key
// splits back at its first NUL and two different pairs never share a key (or, through the
// namer's hash on collision, a model name).
func toolKey(server, tool string) string { return server + "\x00" + tool }

// keyServer returns the server of a toolKey.
func keyServer(key string) string {
	server, _, _ := strings.Cut(key, "\x00")
	return server
}

func toolTitle(t *mcp.Tool) string {
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil {
		return t.Annotations.Title
	}
	return ""
}

// watchProgress registers a running call by its progress token, with its asker (may be nil).
func (s *server) watchProgress(token string, a *asker) chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.progress[token] = ch
	if a != nil {
		s.askers[token] = a
	}
	s.mu.Unlock()
	return ch
}

func (s *server) unwatchProgress(token string) {
	s.mu.Lock()
	delete(s.progress, token)
	delete(s.askers, token)
	s.mu.Unlock()
}

// progressedAll counts as progress for every call of the server under way.
func (s *server) progressedAll() {
	s.mu.Lock()
	chans := make([]chan struct{}, 0, len(s.progress))
	for _, ch := range s.progress {
		chans = append(chans, ch)
	}
	s.mu.Unlock()
	for _, ch := range chans {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (s *server) progressed(token string) {
	s.mu.Lock()
	ch := s.progress[token]
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// tailWriter logs a stdio server's standard error line by line at Debug and keeps the
// last few lines to explain a failed start.
type tailWriter struct {
	log *zap.Logger

	mu    sync.Mutex
	part  []byte
	lines []string
}

const tailLines = 5

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		w.addLine(string(w.part[:i]))
		w.part = w.part[i+1:]
	}
	if len(w.part) > 4096 { // a very long line without a newline
		w.addLine(string(w.part))
		w.part = nil
	}
	return len(p), nil
}

func (w *tailWriter) addLine(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	w.log.Debug("server stderr", zap.String("line", line))
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	w.lines = append(w.lines, line)
	if len(w.lines) > tailLines {
		w.lines = w.lines[len(w.lines)-tailLines:]
	}
}

func (w *tailWriter) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, " | ")
}

func (w *tailWriter) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part, w.lines = nil, nil
}
