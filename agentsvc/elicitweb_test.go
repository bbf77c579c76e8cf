package agentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/elicit"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// bookingQuestion is what the go-sdk server asks the visitor.
const bookingQuestion = "Who is the booking for?"

// askingServers runs go-sdk servers over Streamable HTTP that ask the user during a call, as
// byomcp serve runs them (CallsAsk): "asker" (stateful) asks with elicitation/create in its
// tool book, and for a URL in visit; "mrtr" (stateless: MCP 2026-07-28) asks in book_mrtr with
// the multi-round-trip form. answers counts the answers that reach the servers' tools.
func askingServers(t *testing.T) (*mcpservers.Manager, *atomic.Int32) {
	t.Helper()
	answers := new(atomic.Int32)
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	form := &mcp.ElicitParams{Message: bookingQuestion, RequestedSchema: map[string]any{
		"type": "object", "required": []string{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name", "minLength": 1}},
	}}
	answer := func(r *mcp.ElicitResult) *mcp.CallToolResult {
		answers.Add(1)
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
	srv.AddTool(&mcp.Tool{Name: "visit", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in to the shop", URL: "https://shop.example/login?x=1", ElicitationID: "e1"})
		if err != nil {
			return nil, err
		}
		answers.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "visit: " + r.Action}}}, nil
	})
	url := func(stateless bool) string {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		return hs.URL
	}
	return startServers(t, []mcpservers.ServerConfig{
		{Name: "asker", Transport: mcpservers.TransportStreamable, URL: url(false), Expose: []string{mcpservers.AudienceWeb}},
		{Name: "mrtr", Transport: mcpservers.TransportStreamable, URL: url(true), Expose: []string{mcpservers.AudienceWeb}},
	}), answers
}

// startServers starts a Manager of servers as byomcp serve does (CallsAsk) and waits for them.
func startServers(t *testing.T, servers []mcpservers.ServerConfig) *mcpservers.Manager {
	t.Helper()
	mgr := mcpservers.Start(t.Context(), &mcpservers.Config{Servers: servers}, mcpservers.Options{Logger: zaptest.NewLogger(t).Named("mcp"), CallsAsk: true})
	t.Cleanup(mgr.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return mgr
}

// oneCallModel calls tool once (call id c1), then ends the turn.
func oneCallModel(tool string) *scriptModel {
	return &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n == 0 {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("c1", tool, `{}`)}}, nil
		}
		return &llm.Response{Text: "done"}, nil
	}}
}

// TestElicitationAskedOfTheConversationsPage: a server tool's MCP server asks for input
// during a web conversation's call; the conversation's page is asked (agent/elicit, with the
// server's form), and its visitor's answer reaches the server: accept with the content,
// decline and cancel as such. A page that cannot ask, an answer that is not of
// ElicitResult's shape, or content that does not fit the server's schema: the server is told
// cancel. The model reads one line when the visitor did not accept, and the tool_result
// records each question (not the answers).
func TestElicitationAskedOfTheConversationsPage(t *testing.T) {
	mgr, answers := askingServers(t)
	for _, tc := range []struct {
		name     string
		tool     string
		answer   func(wire.ElicitParams) (any, error) // nil: the page has no agent/elicit
		want     string                               // the tool's own answer
		action   string                               // what the server was told
		missed   string
		modelSay string // the line the model reads ("": none)
	}{
		{"accepted", "asker__book", func(wire.ElicitParams) (any, error) {
			return wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Jane Doe"}}, nil
		}, "booked for Jane Doe", "accept", "", ""},
		{"accepted, multi-round-trip", "mrtr__book_mrtr", func(wire.ElicitParams) (any, error) {
			return wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
		}, "booked for Ann", "accept", "", ""},
		{"declined", "asker__book", func(wire.ElicitParams) (any, error) {
			return wire.ElicitResult{Action: "decline"}, nil
		}, "not booked: decline", "decline", "", `The user was asked "Who is the booking for?" and declined; the server was told decline.`},
		{"cancelled", "mrtr__book_mrtr", func(wire.ElicitParams) (any, error) {
			return wire.ElicitResult{Action: "cancel"}, nil
		}, "not booked: cancel", "cancel", "", `and cancelled; the server was told cancel.`},
		{"no agent/elicit", "asker__book", nil, "not booked: cancel", "cancel", wire.AskedUnable, "but the page could not ask them; the server was told cancel."},
		{"not an ElicitResult", "asker__book", func(wire.ElicitParams) (any, error) {
			return map[string]any{"action": "maybe", "content": map[string]any{"name": "Jane"}}, nil
		}, "not booked: cancel", "cancel", wire.AskedBadAnswer, "but the page's answer was not valid"},
		{"content that does not fit", "asker__book", func(wire.ElicitParams) (any, error) {
			return map[string]any{"action": "accept", "content": map[string]any{"name": 5}}, nil
		}, "not booked: cancel", "cancel", wire.AskedBadAnswer, "but the page's answer was not valid"},
		{"required answer missing", "asker__book", func(wire.ElicitParams) (any, error) {
			return map[string]any{"action": "accept"}, nil
		}, "not booked: cancel", "cancel", wire.AskedBadAnswer, "but the page's answer was not valid"},
		{"content with a decline", "asker__book", func(wire.ElicitParams) (any, error) {
			return map[string]any{"action": "decline", "content": map[string]any{"name": "x"}}, nil
		}, "not booked: cancel", "cancel", wire.AskedBadAnswer, "but the page's answer was not valid"},
		{"URL accepted", "asker__visit", func(p wire.ElicitParams) (any, error) {
			if p.Mode != "url" || p.URL != "https://shop.example/login?x=1" || p.ElicitationID != "e1" || p.RequestedSchema != nil {
				return nil, fmt.Errorf("URL request %+v", p)
			}
			return wire.ElicitResult{Action: "accept"}, nil
		}, "visit: accept", "accept", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := answers.Load()
			model, _ := openAIModel(t, llmtest.Script(
				llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: tc.tool, Args: `{}`}}},
				llmtest.Step{Text: "done"},
			))
			ts := newTestServer(t, model, func(c *Config) { c.ServerTools = mgr })
			var asked []wire.ElicitParams
			page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) {
				if tc.answer != nil {
					p.elicit = func(_ context.Context, ep wire.ElicitParams) (any, error) {
						p.lock.Lock()
						asked = append(asked, ep)
						p.lock.Unlock()
						return tc.answer(ep)
					}
				}
			})
			page.session(wire.SessionParams{})
			if _, err := page.chat("book it"); err != nil {
				t.Fatal(err)
			}
			result := turnResult(page, "c1")
			if result == nil || !strings.HasSuffix(result.Text, tc.want) {
				t.Fatalf("tool_result %+v, want the server's %q", result, tc.want)
			}
			if n := answers.Load() - before; n != 1 {
				t.Errorf("%d answers reached the server, want 1", n)
			}
			switch {
			case tc.modelSay == "" && result.Text != tc.want:
				t.Errorf("the model read %q, want only the tool's answer", result.Text)
			case tc.modelSay != "" && (!strings.Contains(result.Text, tc.modelSay) || !strings.HasSuffix(result.Text, "; the server was told "+tc.action+".\n"+tc.want)):
				t.Errorf("the model read %q, want the line %q", result.Text, tc.modelSay)
			}
			if len(result.Asked) != 1 {
				t.Fatalf("tool_result records %+v, want one question", result.Asked)
			}
			q := result.Asked[0]
			server, _, _ := strings.Cut(tc.tool, "__")
			if q.Server != server || q.Action != tc.action || q.Missed != tc.missed || q.At == 0 || q.Message == "" {
				t.Errorf("tool_result records %+v, want server %s, action %q, missed %q, a message and a time", q, server, tc.action, tc.missed)
			}
			page.lock.Lock()
			defer page.lock.Unlock()
			if tc.answer == nil {
				return
			}
			if len(asked) != 1 || asked[0].Server != server || asked[0].Meta == nil || asked[0].Meta.ProgressToken == "" {
				t.Fatalf("agent/elicit requests %+v, want one from %s with a progress token", asked, server)
			}
			if p := asked[0]; p.Mode == wire.ElicitForm && (p.Message != bookingQuestion || !strings.Contains(string(p.RequestedSchema), `"name"`)) {
				t.Errorf("agent/elicit %+v, want the server's question and form", p)
			}
		})
	}
}

// TestElicitationFromServerEverythingInAWebConversation: @modelcontextprotocol/server-everything
// over stdio, whose trigger-elicitation-request asks for a dozen fields: its form reaches the
// page whole, and the visitor's answers reach the server; a decline too.
func TestElicitationFromServerEverythingInAWebConversation(t *testing.T) {
	node, entry := mcpserverstest.Everything(t)
	mgr := startServers(t, []mcpservers.ServerConfig{{Name: "everything", Transport: mcpservers.TransportStdio, Command: node, Args: []string{entry, "stdio"}, Expose: []string{mcpservers.AudienceWeb}}})
	for _, accept := range []bool{true, false} {
		t.Run(fmt.Sprint("accept=", accept), func(t *testing.T) {
			ts := newTestServer(t, oneCallModel("everything__trigger-elicitation-request"), func(c *Config) { c.ServerTools = mgr })
			var fields atomic.Int32
			page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) {
				p.elicit = func(_ context.Context, ep wire.ElicitParams) (any, error) {
					if !accept {
						return wire.ElicitResult{Action: "decline"}, nil
					}
					content, n := fillIn(t, ep.RequestedSchema)
					fields.Store(int32(n))
					return wire.ElicitResult{Action: "accept", Content: content}, nil
				}
			})
			page.session(wire.SessionParams{})
			if _, err := page.chat("ask me"); err != nil {
				t.Fatal(err)
			}
			result := turnResult(page, "c1")
			if result == nil {
				t.Fatal("no tool_result")
			}
			if accept {
				for _, want := range []string{"User provided the requested information", "- Name: Jane Doe", "- Email: jane@example.com"} {
					if !strings.Contains(result.Text, want) {
						t.Errorf("the tool's result lacks %q:\n%s", want, result.Text)
					}
				}
				if n := fields.Load(); n < 10 {
					t.Errorf("the page's form had %d fields, want the server's dozen", n)
				}
			} else if !strings.Contains(result.Text, "declined") || len(result.Asked) != 1 || result.Asked[0].Action != "decline" {
				t.Errorf("declined: the tool's result %q, asked %+v", result.Text, result.Asked)
			}
		})
	}
}

// fillIn answers a form the way a visitor fills the widget's: a default where there is one,
// else the first option, yes, the minimum or a text; n is the number of fields.
func fillIn(t *testing.T, schema json.RawMessage) (content map[string]any, n int) {
	t.Helper()
	var s any
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	fields, err := elicit.Parse(s)
	if err != nil {
		t.Fatalf("the server's form: %v", err)
	}
	content = map[string]any{}
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
			typed = "Jane Doe"
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
			content[f.Name] = v
		}
	}
	return content, len(fields)
}

// TestElicitationAskedAgainAfterAReload: the visitor reloads the page while its form asks for
// the server's input (the page said it was asking, then went away); the page that comes
// next, here or on another replica (through the relay), is asked again, and the server gets
// that page's answer, once.
func TestElicitationAskedAgainAfterAReload(t *testing.T) {
	for _, replicas := range []int{1, 2} {
		t.Run(fmt.Sprint("replicas=", replicas), func(t *testing.T) {
			mgr, answers := askingServers(t)
			model := oneCallModel("asker__book")
			var first, second *testServer
			if replicas == 1 {
				first = newTestServer(t, model, func(c *Config) { c.ServerTools = mgr })
				second = first
			} else {
				_, first, second = twoReplicas(t, model, func(c *Config) { c.ServerTools = mgr })
			}
			asking := make(chan struct{})
			reloading := newFakePageWith(t, first, testOrigin, func(p *fakePage) {
				p.elicit = func(ctx context.Context, ep wire.ElicitParams) (any, error) {
					_ = p.peer.Notify(ctx, wire.MethodProgress, wire.ProgressParams{ProgressToken: json.RawMessage(jsonString(ep.Meta.ProgressToken)), Progress: 1, Message: wire.ProgressAwaitingConfirm})
					close(asking)
					<-ctx.Done()
					return nil, ctx.Err()
				}
			})
			sess := reloading.session(wire.SessionParams{})
			go func() { _, _ = reloading.chat("book it") }()
			seen := reloading.eventsUntil(wire.EventToolCall)
			<-asking
			reloading.peer.Close(nil)

			var asked atomic.Int32
			next := newFakePageWith(t, second, testOrigin, func(p *fakePage) {
				p.elicit = func(_ context.Context, ep wire.ElicitParams) (any, error) {
					asked.Add(1)
					if ep.Message != bookingQuestion {
						return nil, fmt.Errorf("asked %q", ep.Message)
					}
					return wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Jane Doe"}}, nil
				}
			})
			last := lastSeqOf(seen)
			if res := next.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); res.Running == nil {
				t.Fatalf("got %+v, want the turn running", res)
			}
			result := turnResult(next, "c1")
			if asked.Load() != 1 || answers.Load() != 1 {
				t.Errorf("the next page was asked %d times and %d answers reached the server; want once and once", asked.Load(), answers.Load())
			}
			if result == nil || result.Text != "booked for Jane Doe" || len(result.Asked) != 1 || result.Asked[0].Action != "accept" {
				t.Errorf("tool_result %+v, want the booking for the next page's answer", result)
			}
		})
	}
}

// TestElicitationAskedThroughAnotherReplica: the turn runs on replica a while its tab moved
// to replica b (a tool navigated); the server's question is asked of the tab where it is,
// through the bus (a call carrying el, answered with eld, each fitting $defs/Relay of
// docs/protocol.schema.json), and its answer reaches the server.
func TestElicitationAskedThroughAnotherReplica(t *testing.T) {
	mgr, answers := askingServers(t)
	goTool := pageTestTool{tool: wire.PageTool{Name: "open_booking", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	goTool.fn = func(context.Context, map[string]any) (any, error) {
		return navigatingResult("navigating to the booking page"), nil
	}
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("n1", "open_booking", `{}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("b1", "mrtr__book_mrtr", `{}`)}}, nil
		default:
			return &llm.Response{Text: "done"}, nil
		}
	}}
	shared, a, b := twoReplicas(t, model, func(c *Config) { c.ServerTools = mgr })
	rec := recordRelay(t, shared)
	first := openPage(t, a, testOrigin, goTool)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("book") }()
	seen := first.eventsUntil(wire.EventToolResult)
	first.peer.Close(nil)

	var mu sync.Mutex
	var asked []wire.ElicitParams
	second := newFakePageWith(t, b, testOrigin, func(p *fakePage) {
		p.elicit = func(_ context.Context, ep wire.ElicitParams) (any, error) {
			mu.Lock()
			asked = append(asked, ep)
			mu.Unlock()
			return wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo"}}, nil
		}
	})
	last := lastSeqOf(seen)
	if res := second.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); res.Running == nil {
		t.Fatalf("got %+v, want the turn running on a", res)
	}
	result := turnResult(second, "b1")
	if result == nil || result.Text != "booked for Bo" || answers.Load() != 1 {
		t.Fatalf("tool_result %+v (%d answers), want the booking with b's answer", result, answers.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Server != "mrtr" || !strings.Contains(string(asked[0].RequestedSchema), `"minLength":1`) {
		t.Errorf("the page on b was asked %+v, want the server's form once", asked)
	}
	lines := rec.all()
	validateRelay(t, lines)
	var el, eld int
	for _, l := range lines {
		var m wire.RelayMsg
		_ = json.Unmarshal([]byte(l.raw), &m)
		if m.Kind == wire.RelayCall && m.Elicit != nil && m.Elicit.Message == bookingQuestion {
			el++
		}
		if m.Kind == wire.RelayReply && m.Elicited != nil && m.Elicited.Result.Action == "accept" && m.Elicited.Result.Content["name"] == "Bo" {
			eld++
		}
	}
	if el != 1 || eld != 1 {
		t.Errorf("the bus carried %d eliciting calls and %d answers, want 1 and 1", el, eld)
	}
}

// TestElicitationNotAnsweredInTime: the page asks but its visitor never answers (and the page
// sends no progress): the question ends at the tool's time-out, the server is told cancel,
// and the model reads that the user did not answer in time.
func TestElicitationNotAnsweredInTime(t *testing.T) {
	mgr, answers := askingServers(t)
	ts := newTestServer(t, oneCallModel("asker__book"), func(c *Config) {
		c.ServerTools = mgr
		c.ToolTimeout = 200 * time.Millisecond
	})
	page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) {
		p.elicit = func(ctx context.Context, _ wire.ElicitParams) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	})
	page.session(wire.SessionParams{})
	if _, err := page.chat("book it"); err != nil {
		t.Fatal(err)
	}
	result := turnResult(page, "c1")
	want := `The user was asked "Who is the booking for?" and did not answer in time; the server was told cancel.` + "\nnot booked: cancel"
	if result == nil || result.Text != want || answers.Load() != 1 {
		t.Fatalf("tool_result %+v (%d answers), want %q", result, answers.Load(), want)
	}
	if len(result.Asked) != 1 || result.Asked[0].Missed != wire.AskedLate {
		t.Errorf("tool_result records %+v, want the question missed for time", result.Asked)
	}
}

// TestRequiredFirst: the form's fields reach the page required first, then the others, each
// group by name; what is not a schema with properties passes as it is.
func TestRequiredFirst(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"object","required":["name","email"],"properties":{"terrace":{"type":"boolean"},"guests":{"type":"integer"},"name":{"type":"string"},"email":{"type":"string"}}}`,
			`{"properties":{"email":{"type":"string"},"name":{"type":"string"},"guests":{"type":"integer"},"terrace":{"type":"boolean"}},"required":["name","email"],"type":"object"}`},
		{`{"type":"object","properties":{"b":{},"a":{}}}`, `{"properties":{"a":{},"b":{}},"type":"object"}`},
		{`{"type":"object"}`, `{"type":"object"}`},
		{`[1]`, `[1]`},
	} {
		if got := string(requiredFirst(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("requiredFirst(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
