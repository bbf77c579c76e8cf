package mcpservers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fake is an in-process MCP server built with the SDK, reached over in-memory pipes. It
// counts the tools/call requests that reach it.
type fake struct {
	srv       *mcp.Server
	calls     atomic.Int32
	cancelled chan string // names of calls whose context ended before they finished

	mu       sync.Mutex
	sessions []*mcp.ServerSession
	dials    int
	dialErr  error // when set, dialing fails with it
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}`

func newFake() *fake {
	f := &fake{cancelled: make(chan string, 16)}
	f.srv = mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				f.calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	f.srv.AddTool(&mcp.Tool{Name: "echo", Description: "echoes text", InputSchema: json.RawMessage(echoSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "echo: " + args.Text},
				&mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"},
			}}, nil
		})
	f.srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			f.cancelled <- req.Params.Name
			return nil, ctx.Err()
		})
	f.srv.AddTool(&mcp.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object","properties":{"steps":{"type":"integer"},"every":{"type":"integer"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Steps, Every int }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			for i := range args.Steps {
				select {
				case <-time.After(time.Duration(args.Every) * time.Second):
				case <-ctx.Done():
					f.cancelled <- req.Params.Name
					return nil, ctx.Err()
				}
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: float64(args.Steps),
				}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	// A schema that the SDK server accepts but that does not compile: skipped by the Manager.
	f.srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	return f
}

// config returns a server entry that dials f.
func (f *fake) config(name string, expose ...string) ServerConfig {
	if len(expose) == 0 {
		expose = []string{AudienceCLI}
	}
	return ServerConfig{Name: name, Transport: "memory", Expose: expose, transport: f.dial}
}

func (f *fake) dial() (mcp.Transport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dials++
	if f.dialErr != nil {
		return nil, f.dialErr
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(context.Background(), st, nil)
	if err != nil {
		return nil, err
	}
	f.sessions = append(f.sessions, ss)
	return ct, nil
}

// dropSessions closes the server side of every session, like a crashed server.
func (f *fake) dropSessions() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ss := range f.sessions {
		ss.Close()
	}
	f.sessions = nil
}

func (f *fake) setDialErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dialErr = err
}

func modelNames(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ModelName)
	}
	return out
}

func statusOf(t *testing.T, m *Manager, name string) ServerStatus {
	t.Helper()
	for _, st := range m.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no status for %q", name)
	return ServerStatus{}
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestToolsAndCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{})
		defer m.Close()
		if err := m.WaitReady(t.Context()); err != nil {
			t.Fatalf("WaitReady: %v", err)
		}
		synctest.Wait()

		got := modelNames(m.Tools(AudienceCLI))
		want := []string{"fake__echo", "fake__slow", "fake__progress"} // "broken" does not compile
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("Tools(cli) = %v, want %v", got, want)
		}
		var echo Tool
		for _, tl := range m.Tools(AudienceCLI) {
			if tl.Name == "echo" {
				echo = tl
			}
		}
		if echo.Server != "fake" || echo.Description != "echoes text" || echo.Annotations == nil || !echo.Annotations.ReadOnlyHint {
			t.Errorf("echo tool = %+v", echo)
		}
		var schema map[string]any
		if err := json.Unmarshal(echo.InputSchema, &schema); err != nil || schema["required"] == nil {
			t.Errorf("echo InputSchema = %s (%v), want the server's schema", echo.InputSchema, err)
		}
		st := statusOf(t, m, "fake")
		if st.State != StateReady || st.Tools != 3 || st.Attempts != 1 || st.Error != "" {
			t.Errorf("status = %+v, want ready with 3 tools after 1 attempt", st)
		}

		res, err := m.Call(t.Context(), AudienceCLI, "fake__echo", json.RawMessage(`{"text":"hi"}`))
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		if textOf(res) != "echo: hi" {
			t.Errorf("text = %q, want %q", textOf(res), "echo: hi")
		}
		if len(res.Content) != 2 {
			t.Fatalf("content has %d parts, want 2 (text and image)", len(res.Content))
		}
		if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG\r\n\x1a\n" {
			t.Errorf("content[1] = %#v, want the PNG image intact", res.Content[1])
		}

		if _, err := m.Call(t.Context(), AudienceCLI, "fake__nope", nil); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("unknown tool: err = %v, want ErrUnknownTool", err)
		}
		if _, err := m.Call(t.Context(), AudienceCLI, "fake__broken", nil); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("skipped tool: err = %v, want ErrUnknownTool", err)
		}
		if n := f.calls.Load(); n != 1 {
			t.Errorf("server saw %d calls, want 1", n)
		}
	})
}

func TestValidationNeverReachesServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{})
		defer m.Close()
		m.WaitReady(t.Context())

		compiled, err := tools.CompileSchema(json.RawMessage(echoSchema))
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range []string{`{"text": 5}`, `{}`, `{"text": ""}`, `{"text": "a", "extra": 1}`, `{`, `[1]`} {
			_, err := m.Call(t.Context(), AudienceCLI, "fake__echo", json.RawMessage(args))
			if !errors.Is(err, ErrInvalidArguments) {
				t.Errorf("Call(%s): err = %v, want ErrInvalidArguments", args, err)
				continue
			}
			var ae *ArgumentsError
			if !errors.As(err, &ae) || ae.Tool != "fake__echo" {
				t.Errorf("Call(%s): err %T %v, want *ArgumentsError for fake__echo", args, err, err)
			}
			if want := compiled.Validate(t.Context(), json.RawMessage(args)).Error(); err.Error() != want {
				t.Errorf("Call(%s): message %q, want the validator's %q", args, err, want)
			}
		}
		if n := f.calls.Load(); n != 0 {
			t.Errorf("server saw %d calls, want 0", n)
		}
	})
}

func TestExposeFiltering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		web, cli, both := newFake(), newFake(), newFake()
		cfg := &Config{Servers: []ServerConfig{
			both.config("both", AudienceCLI, AudienceWeb),
			cli.config("term"),
			web.config("webby", AudienceWeb),
		}}
		m := Start(t.Context(), cfg, Options{})
		defer m.Close()
		m.WaitReady(t.Context())

		echoes := func(audience string) []string {
			var out []string
			for _, n := range modelNames(m.Tools(audience)) {
				if strings.HasSuffix(n, "__echo") {
					out = append(out, n)
				}
			}
			return out
		}
		if got, want := echoes(AudienceWeb), []string{"both__echo", "webby__echo"}; !slices.Equal(got, want) {
			t.Errorf("web tools = %v, want %v", got, want)
		}
		if got, want := echoes(AudienceCLI), []string{"both__echo", "term__echo"}; !slices.Equal(got, want) {
			t.Errorf("cli tools = %v, want %v", got, want)
		}
		if got := m.Tools("other"); len(got) != 0 {
			t.Errorf("unknown audience sees %v, want nothing", modelNames(got))
		}

		args := json.RawMessage(`{"text":"x"}`)
		if _, err := m.Call(t.Context(), AudienceWeb, "term__echo", args); !errors.Is(err, ErrNotExposed) {
			t.Errorf("web calling a cli tool: err = %v, want ErrNotExposed", err)
		}
		if _, err := m.Call(t.Context(), AudienceCLI, "webby__echo", args); !errors.Is(err, ErrNotExposed) {
			t.Errorf("cli calling a web tool: err = %v, want ErrNotExposed", err)
		}
		if web.calls.Load() != 0 || cli.calls.Load() != 0 {
			t.Errorf("refused calls reached servers: web %d, cli %d", web.calls.Load(), cli.calls.Load())
		}
		for _, aud := range []string{AudienceWeb, AudienceCLI} {
			if _, err := m.Call(t.Context(), aud, "both__echo", args); err != nil {
				t.Errorf("%s calling both__echo: %v", aud, err)
			}
		}
		if both.calls.Load() != 2 {
			t.Errorf("both saw %d calls, want 2", both.calls.Load())
		}
	})
}

func TestCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{CallTimeout: 30 * time.Second})
		defer m.Close()
		m.WaitReady(t.Context())

		start := time.Now()
		_, err := m.Call(t.Context(), AudienceCLI, "fake__slow", nil)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if !strings.Contains(err.Error(), "without progress") {
			t.Errorf("err = %q, want it to say the call had no progress", err)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("timed out after %v of fake time, want 30s", got)
		}
		synctest.Wait()
		select {
		case name := <-f.cancelled:
			if name != "slow" {
				t.Errorf("cancelled %q, want slow", name)
			}
		default:
			t.Error("the server was not told the call was cancelled")
		}
	})
}

func TestServerTimeoutOverride(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		sc := f.config("fake")
		sc.Timeout = 5 * time.Second
		m := Start(t.Context(), &Config{Servers: []ServerConfig{sc}}, Options{CallTimeout: 30 * time.Second})
		defer m.Close()
		m.WaitReady(t.Context())
		start := time.Now()
		if _, err := m.Call(t.Context(), AudienceCLI, "fake__slow", nil); !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("timed out after %v of fake time, want the server's 5s", got)
		}
	})
}

func TestProgressExtendsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}},
			Options{CallTimeout: 30 * time.Second, MaxTimeout: 10 * time.Minute})
		defer m.Close()
		m.WaitReady(t.Context())

		// 5 steps of 20s: 100s in all, never 30s without progress.
		start := time.Now()
		res, err := m.Call(t.Context(), AudienceCLI, "fake__progress", json.RawMessage(`{"steps":5,"every":20}`))
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		if textOf(res) != "done" {
			t.Errorf("text = %q, want done", textOf(res))
		}
		if got := time.Since(start); got != 100*time.Second {
			t.Errorf("call took %v of fake time, want 100s", got)
		}

		// Progress every 40s is too slow for a 30s timeout.
		_, err = m.Call(t.Context(), AudienceCLI, "fake__progress", json.RawMessage(`{"steps":5,"every":40}`))
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("slow progress: err = %v, want ErrTimeout", err)
		}
	})
}

func TestMaxTimeoutCapsProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}},
			Options{CallTimeout: 30 * time.Second, MaxTimeout: time.Minute})
		defer m.Close()
		m.WaitReady(t.Context())

		start := time.Now()
		_, err := m.Call(t.Context(), AudienceCLI, "fake__progress", json.RawMessage(`{"steps":12,"every":7}`)) // progress at 7s, 14s, …: never at the 60s mark
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "maximum") {
			t.Fatalf("err = %v, want ErrTimeout at the maximum", err)
		}
		if got := time.Since(start); got != time.Minute {
			t.Errorf("stopped after %v of fake time, want the 1m maximum", got)
		}
		synctest.Wait()
		if len(f.cancelled) != 1 {
			t.Errorf("server saw %d cancellations, want 1", len(f.cancelled))
		}
	})
}

func TestCallerCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{})
		defer m.Close()
		m.WaitReady(t.Context())
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		_, err := m.Call(ctx, AudienceCLI, "fake__slow", nil)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Errorf("err = %v, want the caller's deadline, not ErrTimeout", err)
		}
	})
}

func TestToolListChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{})
		defer m.Close()
		m.WaitReady(t.Context())
		synctest.Wait()

		f.srv.AddTool(&mcp.Tool{Name: "fresh", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil
			})
		f.srv.RemoveTools("slow")
		time.Sleep(time.Second) // the SDK server debounces list_changed
		synctest.Wait()

		got := modelNames(m.Tools(AudienceCLI))
		if !slices.Contains(got, "fake__fresh") || slices.Contains(got, "fake__slow") {
			t.Fatalf("after list_changed: tools = %v, want fake__fresh and no fake__slow", got)
		}
		res, err := m.Call(t.Context(), AudienceCLI, "fake__fresh", nil)
		if err != nil || textOf(res) != "new" {
			t.Errorf("Call(fresh) = %v, %v; want \"new\"", res, err)
		}
	})
}

func TestReconnectAfterLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}},
			Options{InitialBackoff: time.Second, MaxBackoff: 8 * time.Second})
		defer m.Close()
		m.WaitReady(t.Context())
		synctest.Wait()

		f.dropSessions()
		synctest.Wait()
		st := statusOf(t, m, "fake")
		if st.State != StateRetrying || !strings.Contains(st.Error, "connection lost") || st.Tools != 0 {
			t.Fatalf("after the server dropped: status = %+v, want retrying after a lost connection", st)
		}
		if got := m.Tools(AudienceCLI); len(got) != 0 {
			t.Errorf("tools of a lost server are still listed: %v", modelNames(got))
		}
		_, err := m.Call(t.Context(), AudienceCLI, "fake__echo", json.RawMessage(`{"text":"x"}`))
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("call while down: err = %v, want ErrUnavailable", err)
		}

		time.Sleep(time.Second) // the backoff
		synctest.Wait()
		st = statusOf(t, m, "fake")
		if st.State != StateReady || st.Attempts != 2 {
			t.Fatalf("after the backoff: status = %+v, want ready after 2 attempts", st)
		}
		if _, err := m.Call(t.Context(), AudienceCLI, "fake__echo", json.RawMessage(`{"text":"x"}`)); err != nil {
			t.Errorf("call after reconnect: %v", err)
		}
	})
}

func TestFailingServerRetriedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		good, bad := newFake(), newFake()
		bad.setDialErr(errors.New("boom"))
		cfg := &Config{Servers: []ServerConfig{bad.config("bad"), good.config("good")}}
		m := Start(t.Context(), cfg, Options{InitialBackoff: time.Second, MaxBackoff: 4 * time.Second})
		defer m.Close()
		if err := m.WaitReady(t.Context()); err != nil {
			t.Fatalf("WaitReady: %v", err)
		}
		synctest.Wait()

		st := statusOf(t, m, "bad")
		if st.State != StateRetrying || !strings.Contains(st.Error, "boom") || st.Attempts != 1 {
			t.Errorf("bad status = %+v, want retrying with the error after 1 attempt", st)
		}
		if st := statusOf(t, m, "good"); st.State != StateReady {
			t.Errorf("good status = %+v, want ready", st)
		}
		if _, err := m.Call(t.Context(), AudienceCLI, "good__echo", json.RawMessage(`{"text":"x"}`)); err != nil {
			t.Errorf("good server call: %v", err)
		}

		// Retries at 1s, 3s (1+2), 7s (3+4), 11s (7+4: capped).
		for _, step := range []struct {
			wait     time.Duration
			attempts int
		}{{time.Second, 2}, {2 * time.Second, 3}, {4 * time.Second, 4}, {4 * time.Second, 5}} {
			time.Sleep(step.wait - time.Millisecond)
			synctest.Wait()
			if got := statusOf(t, m, "bad").Attempts; got != step.attempts-1 {
				t.Fatalf("just before the retry: attempts = %d, want %d", got, step.attempts-1)
			}
			time.Sleep(time.Millisecond)
			synctest.Wait()
			if got := statusOf(t, m, "bad").Attempts; got != step.attempts {
				t.Fatalf("after the retry: attempts = %d, want %d", got, step.attempts)
			}
		}

		bad.setDialErr(nil)
		time.Sleep(4 * time.Second)
		synctest.Wait()
		if st := statusOf(t, m, "bad"); st.State != StateReady || st.Error != "" {
			t.Errorf("after the server came back: status = %+v, want ready", st)
		}
	})
}

func TestConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A peer that reads everything and never answers.
		silent := func() (mcp.Transport, error) {
			a, b := mcp.NewInMemoryTransports()
			conn, err := b.Connect(context.Background())
			if err != nil {
				return nil, err
			}
			go func() {
				defer conn.Close()
				for {
					if _, err := conn.Read(context.Background()); err != nil {
						return
					}
				}
			}()
			return a, nil
		}
		cfg := &Config{Servers: []ServerConfig{{Name: "mute", Transport: "memory", Expose: []string{AudienceCLI}, transport: silent}}}
		m := Start(t.Context(), cfg, Options{ConnectTimeout: 10 * time.Second, InitialBackoff: time.Hour})
		defer m.Close()
		start := time.Now()
		m.WaitReady(t.Context())
		if got := time.Since(start); got != 10*time.Second {
			t.Errorf("first attempt ended after %v of fake time, want the 10s connect timeout", got)
		}
		st := statusOf(t, m, "mute")
		if st.State != StateRetrying || !strings.Contains(st.Error, "no answer within 10s") {
			t.Errorf("status = %+v, want retrying with a connect timeout", st)
		}
	})
}

func TestCloseAndEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Start(t.Context(), nil, Options{})
		if err := m.WaitReady(t.Context()); err != nil {
			t.Errorf("WaitReady with no servers: %v", err)
		}
		if len(m.Tools(AudienceWeb)) != 0 || len(m.Status()) != 0 {
			t.Error("a Manager with no servers lists something")
		}
		m.Close()
		m.Close() // idempotent

		f := newFake()
		m = Start(t.Context(), &Config{Servers: []ServerConfig{f.config("fake")}}, Options{})
		m.WaitReady(t.Context())
		m.Close()
		if st := statusOf(t, m, "fake"); st.State != StateClosed {
			t.Errorf("after Close: state %s, want closed", st.State)
		}
		if _, err := m.Call(t.Context(), AudienceCLI, "fake__echo", json.RawMessage(`{"text":"x"}`)); !errors.Is(err, ErrUnavailable) {
			t.Errorf("call after Close: err = %v, want ErrUnavailable", err)
		}
	})
}

func TestChildEnv(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/home/me", "OPENAI_API_KEY=sk-secret", "LANG=C.UTF-8", "AWS_SECRET_ACCESS_KEY=x", "BROKEN"}
	got := childEnv(environ, map[string]string{"LANG": "de_DE.UTF-8", "API_TOKEN": "tok"})
	want := []string{"PATH=/usr/bin", "HOME=/home/me", "API_TOKEN=tok", "LANG=de_DE.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

// taggedServer dials an in-process server whose tools answer "<server>:<tool>".
func taggedServer(name string, toolNames ...string) ServerConfig {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	for _, tn := range toolNames {
		srv.AddTool(&mcp.Tool{Name: tn, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + tn}}}, nil
			})
	}
	return ServerConfig{Name: name, Transport: "memory", Expose: []string{AudienceCLI}, transport: func() (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

// Two (server, tool) pairs whose "<server>__<tool>" read the same get two model names,
// and each name calls its own server's tool. (The config refuses such server names; the
// namer must keep them apart all the same.)
func TestJoinedNameCollision(t *testing.T) {
	tests := []struct {
		name         string
		first, other ServerConfig
		joined       string
	}{
		{"dunder in server name", taggedServer("a", "b__echo", "x"), taggedServer("a__b", "echo"), "a__b__echo"},
		{"underscore at the seam", taggedServer("x", "_y"), taggedServer("x_", "y"), "x___y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := Start(t.Context(), &Config{Servers: []ServerConfig{tt.first, tt.other}}, Options{})
				defer m.Close()
				m.WaitReady(t.Context())
				synctest.Wait()

				byName := map[string]Tool{}
				plain := 0
				for _, tl := range m.Tools(AudienceCLI) {
					if prev, dup := byName[tl.ModelName]; dup {
						t.Errorf("%s/%s and %s/%s are both named %q", prev.Server, prev.Name, tl.Server, tl.Name, tl.ModelName)
					}
					byName[tl.ModelName] = tl
					if tl.ModelName == tt.joined {
						plain++
					}
					if tl.Server+"__"+tl.Name == tt.joined && !strings.HasPrefix(tl.ModelName, tt.joined) {
						t.Errorf("%s/%s is named %q, want %q or it with a hash suffix", tl.Server, tl.Name, tl.ModelName, tt.joined)
					}
				}
				if plain != 1 {
					t.Errorf("%d tools are named %q, want 1 (the other gets a hash suffix): %v", plain, tt.joined, modelNames(m.Tools(AudienceCLI)))
				}
				for name, tl := range byName {
					res, err := m.Call(t.Context(), AudienceCLI, name, nil)
					if err != nil {
						t.Errorf("Call(%s): %v", name, err)
						continue
					}
					if got, want := textOf(res), tl.Server+":"+tl.Name; got != want {
						t.Errorf("Call(%s) answered %q, want %q", name, got, want)
					}
				}
			})
		})
	}
}
