package mcpservers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/elicit"
	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"
)

// asked records the requests for the user's input a Manager's Options.Elicit received, and
// answers each with answer.
type asked struct {
	mu     sync.Mutex
	reqs   []*mcp.ElicitParams
	from   []string
	answer func(*mcp.ElicitParams) *mcp.ElicitResult
}

func (a *asked) elicit(_ context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, p)
	a.from = append(a.from, server)
	a.mu.Unlock()
	return a.answer(p), nil
}

// fillForm answers a form with a value for each field it can fill the way a person would:
// the default where there is one, else the first option, yes, the minimum or a text.
func fillForm(t *testing.T, p *mcp.ElicitParams, text string) map[string]any {
	t.Helper()
	fields, err := elicit.Parse(p.RequestedSchema)
	if err != nil {
		t.Fatalf("the server's form: %v", err)
	}
	out := map[string]any{}
	for _, f := range fields {
		typed := ""
		switch {
		case f.Default != nil:
		case f.Kind == elicit.Text && f.Format == "email":
			typed = "jane@example.com"
		case f.Kind == elicit.Text && f.Format == "uri":
			typed = "https://example.com"
		case f.Kind == elicit.Text && f.Format == "date":
			typed = "1990-02-28"
		case f.Kind == elicit.Text:
			typed = text
		case f.Kind == elicit.Boolean:
			typed = "yes"
		case f.Kind == elicit.Choice || f.Kind == elicit.Choices:
			typed = "1"
		case f.Min != nil:
			typed = fmt.Sprint(*f.Min)
		default:
			typed = "7"
		}
		v, ok, err := f.Read(typed)
		if err != nil {
			t.Fatalf("field %s: %q: %v", f.Name, typed, err)
		}
		if ok {
			out[f.Name] = v
		}
	}
	return out
}

// TestElicitationFromAThirdPartyServerOverStdio runs server-everything's
// trigger-elicitation-request: offered only to a client that says it can elicit, its form
// reaches Options.Elicit whole, and the answers reach the server.
func TestElicitationFromAThirdPartyServerOverStdio(t *testing.T) {
	node, entry := mcpserverstest.Everything(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg := writeConfig(t, map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}, "expose": []string{"cli"}}})

	plain := Start(ctx, cfg, realOptions(t))
	if err := plain.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if names := modelNames(plain.Tools(AudienceCLI)); slices.Contains(names, "everything__trigger-elicitation-request") {
		t.Errorf("without Options.Elicit the server was told it may elicit: %v", names)
	}
	plain.Close()

	a := &asked{}
	a.answer = func(p *mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: fillForm(t, p, "Jane Doe")}
	}
	opts := realOptions(t)
	opts.Elicit = a.elicit
	m := Start(ctx, cfg, opts)
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	res := mustCall(t, m, ctx, AudienceCLI, "everything__trigger-elicitation-request", `{}`)
	got := textOf(res)
	for _, want := range []string{"User provided the requested information", "- Name: Jane Doe", "- Agreed to terms: true", "- Email: jane@example.com", "- Favorite Integer: 42"} {
		if !strings.Contains(got, want) {
			t.Errorf("the tool's result lacks %q:\n%s", want, got)
		}
	}
	if len(a.reqs) != 1 || a.from[0] != "everything" || a.reqs[0].Message == "" {
		t.Fatalf("asked %d times (%v), want once by everything with its message", len(a.reqs), a.from)
	}
	fields, _ := elicit.Parse(a.reqs[0].RequestedSchema)
	if len(fields) < 10 {
		t.Errorf("the form has %d fields, want the server's dozen", len(fields))
	}

	// Declined: the server hears it.
	a.answer = func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }
	if got := textOf(mustCall(t, m, ctx, AudienceCLI, "everything__trigger-elicitation-request", `{}`)); !strings.Contains(got, "declined") {
		t.Errorf("declined: the tool's result says %q", got)
	}
}

// goSDKAsker is a go-sdk server over Streamable HTTP with two tools that ask the user: book
// asks with elicitation/create during the call, book_mrtr with the multi-round-trip form
// (an input_required result, then the call again carrying the answer); hold runs until
// release is closed. A stateless server speaks MCP 2026-07-28, where book_mrtr's question
// travels in the result; otherwise go-sdk's server turns it into elicitation/create.
func goSDKAsker(t *testing.T, release <-chan struct{}, stateless bool) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	form := &mcp.ElicitParams{Message: "Who is the booking for?", RequestedSchema: map[string]any{
		"type": "object", "required": []string{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name"}},
	}}
	answer := func(r *mcp.ElicitResult) *mcp.CallToolResult {
		if r.Action != "accept" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not booked: " + r.Action}}}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("booked for %v", r.Content["name"])}}}
	}
	srv.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, form)
		if err != nil {
			return nil, err
		}
		return answer(r), nil
	})
	srv.AddTool(&mcp.Tool{Name: "book_mrtr", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult); ok {
			return answer(r), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": form}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestElicitationOverHTTPBothWays: a go-sdk server asks during a call and in the
// multi-round-trip form; both reach Options.Elicit, and the answer reaches the tool. A
// person slower than the call's idle timeout does not time the call out.
func TestElicitationOverHTTPBothWays(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cfg := writeConfig(t, map[string]any{"asker": map[string]any{"url": goSDKAsker(t, nil, false), "expose": []string{"cli"}}})
	// The person answers only once the call's idle time has passed twice while they were
	// asked: an event, not a guess at how long that takes on a busy machine.
	core, logs := observer.New(zap.DebugLevel)
	waited := func(tool string) int {
		return logs.FilterMessageSnippet("idle time passed while the user is asked").FilterField(zap.String("tool", tool)).Len()
	}
	var asking atomic.Value // the tool being called
	a := &asked{answer: func(p *mcp.ElicitParams) *mcp.ElicitResult {
		// Bounded, so that without the fix the test fails in seconds rather than a minute.
		for end := time.Now().Add(10 * time.Second); waited(asking.Load().(string)) < 2 && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Jane Doe"}}
	}}
	opts := realOptions(t)
	opts.Logger = zap.New(zapcore.NewTee(opts.Logger.Core(), core))
	opts.Elicit = a.elicit
	// Short enough that the test is quick, long enough for a loopback round trip under -race.
	opts.CallTimeout = 500 * time.Millisecond
	m := Start(ctx, cfg, opts)
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	for _, tool := range []string{"book", "book_mrtr"} {
		asking.Store(tool)
		if got := textOf(mustCall(t, m, ctx, AudienceCLI, "asker__"+tool, `{}`)); got != "booked for Jane Doe" {
			t.Errorf("%s: got %q, want the booking with the name given", tool, got)
		}
		if n := waited(tool); n < 2 {
			t.Errorf("%s: the call's idle time passed %d times while the user was asked, want 2", tool, n)
		}
	}
	if len(a.reqs) != 2 || a.reqs[1].Message != "Who is the booking for?" {
		t.Errorf("asked %d times: %+v", len(a.reqs), a.reqs)
	}
	a.answer = func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "cancel"} }
	if got := textOf(mustCall(t, m, ctx, AudienceCLI, "asker__book_mrtr", `{}`)); got != "not booked: cancel" {
		t.Errorf("cancelled: got %q", got)
	}
}

// TestElicitationGoesToTheCallThatAsks: with CallsAsk (a web service's many conversations on
// one server session), a server's question goes to the asker of the call it comes during: by
// the call's context for the multi-round-trip form, and for elicitation/create to the only
// conversation with calls under way. While two conversations' calls run, elicitation/create
// cannot be tied to either, and is declined rather than shown to the wrong visitor; so is one
// that comes during a call with no asker.
func TestElicitationGoesToTheCallThatAsks(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	release := make(chan struct{})
	cfg := writeConfig(t, map[string]any{
		"asker": map[string]any{"url": goSDKAsker(t, release, false), "expose": []string{"web"}},
		"mrtr":  map[string]any{"url": goSDKAsker(t, nil, true), "expose": []string{"web"}},
	})
	opts := realOptions(t)
	opts.CallsAsk = true
	m := Start(ctx, cfg, opts)
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	visitor := func(name string) (*asked, context.Context) {
		a := &asked{answer: func(*mcp.ElicitParams) *mcp.ElicitResult {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}
		}}
		return a, WithAsker(ctx, name, a.elicit)
	}
	ann, annCtx := visitor("Ann")
	bob, bobCtx := visitor("Bob")
	for _, c := range []struct {
		ctx        context.Context
		tool, want string
	}{
		{annCtx, "asker__book", "booked for Ann"},
		{bobCtx, "asker__book_mrtr", "booked for Bob"},
		{bobCtx, "asker__book", "booked for Bob"},
		{ctx, "asker__book", "not booked: decline"}, // no asker, no Options.Elicit
	} {
		if got := textOf(mustCall(t, m, c.ctx, AudienceWeb, c.tool, `{}`)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.tool, got, c.want)
		}
	}

	// Bob's call is under way when Ann's asks: elicitation/create cannot tell whose it is.
	held := make(chan string, 1)
	go func() { held <- textOf(mustCall(t, m, bobCtx, AudienceWeb, "asker__hold", `{}`)) }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, mixed := m.servers[0].callsAsker(); mixed || time.Now().After(deadline) {
			break
		}
		m.servers[0].mu.Lock()
		running := len(m.servers[0].progress)
		m.servers[0].mu.Unlock()
		if running > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := textOf(mustCall(t, m, annCtx, AudienceWeb, "asker__book", `{}`)); got != "not booked: decline" {
		t.Errorf("asked while two conversations' calls run: got %q, want it declined", got)
	}
	// A server that speaks MCP 2026-07-28 (stateless) asks in the multi-round-trip form,
	// whose retry carries its call: Ann is asked even while Bob's call runs.
	if got := textOf(mustCall(t, m, annCtx, AudienceWeb, "mrtr__book_mrtr", `{}`)); got != "booked for Ann" {
		t.Errorf("multi-round-trip while Bob's call runs: got %q", got)
	}
	if p := m.servers[1].session.InitializeResult().ProtocolVersion; p != "2026-07-28" {
		t.Errorf("the stateless server spoke %s, not the multi-round-trip version", p)
	}
	close(release)
	if got := <-held; got != "held" {
		t.Errorf("hold: %q", got)
	}
	if len(ann.reqs) != 2 || len(bob.reqs) != 2 {
		t.Errorf("Ann was asked %d times (want 2), Bob %d (want 2)", len(ann.reqs), len(bob.reqs))
	}
}
