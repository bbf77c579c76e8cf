package agui

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/sites"
)

// other is an allowed origin that belongs to no site.
const other = "http://other.test"

// siteFixture serves the endpoint with the sites of sitesJSON (agentsvc/sites, as
// `--sites` loads them): a site's model entry is answered by siteModel. refused counts the
// budget refusals the registry reports (serve counts them in byomcp_refused_total).
func siteFixture(t *testing.T, sitesJSON string, st2 mcpservers.ServerTools, siteModel llm.Model, refused *atomic.Int64, opts ...llmtest.Option) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(path, []byte(sitesJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sites.Open(path, sites.Options{
		NewModel: func(sites.Model) (llm.Model, error) { return siteModel, nil },
		OnRefuse: func() { refused.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureWith(t, nil, st2, func(o *Options) {
		o.OriginAllowed = func(origin string, _ *http.Request) bool { return origin == site || origin == other }
		o.Site = func(origin string) Site { return reg.Lookup(origin) }
	}, opts...)
}

func fakeModel(t *testing.T, opts ...llmtest.Option) (*llmtest.Server, llm.Model) {
	fake := llmtest.New(opts...)
	t.Cleanup(fake.Close)
	return fake, llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "site-model", Provider: "custom", MaxRetries: 1,
		Sleep: func(context.Context, time.Duration) error { return nil }})
}

// TestSiteInstructionsAndModel: a run from the site's origin is answered by the site's model
// with the site's instructions and locale; a run from an origin of no site by the server's.
func TestSiteInstructionsAndModel(t *testing.T) {
	siteFake, siteModel := fakeModel(t, llmtest.Repeat(llmtest.Step{Text: "Grüezi."}))
	var refused atomic.Int64
	f := siteFixture(t, `{"sites": [{"name": "shop", "origins": ["`+site+`"], "systemPrompt": "You are the shop's assistant.", "locale": "de-CH", "model": {"name": "site-model"}}]}`,
		nil, siteModel, &refused, llmtest.Repeat(llmtest.Step{Text: "Hello."}))

	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-site", RunID: "r1", Messages: []Message{user("u1", "hi")}})
	if got := types(evs); !slices.Equal(got, []string{EventRunStarted, EventTextMessageStart, EventTextMessageContent, EventTextMessageEnd, EventRunFinished}) {
		t.Fatalf("events %v", got)
	}
	if n, m := len(siteFake.Requests()), len(f.fake.Requests()); n != 1 || m != 0 {
		t.Fatalf("site model calls %d, server model calls %d; want 1 and 0", n, m)
	}
	sys := siteFake.Requests()[0].Messages[0]
	if sys.Role != "system" || !strings.HasPrefix(sys.Content, "You are the shop's assistant.") || !strings.Contains(sys.Content, "de-CH") {
		t.Errorf("system message %+v, want the site's instructions and locale", sys)
	}

	_, evs = f.run(t, t.Context(), other, RunAgentInput{ThreadID: "th-nosite", RunID: "r1", Messages: []Message{user("u1", "hi")}})
	if evs[len(evs)-1].typ() != EventRunFinished {
		t.Fatalf("events %v", types(evs))
	}
	if n, m := len(siteFake.Requests()), len(f.fake.Requests()); n != 1 || m != 1 {
		t.Fatalf("site model calls %d, server model calls %d; want 1 and 1", n, m)
	}
	if sys := f.fake.Requests()[0].Messages[0]; !strings.HasPrefix(sys.Content, defaultSystemPrompt) || strings.Contains(sys.Content, "de-CH") {
		t.Errorf("system message of no site %+v, want the default instructions", sys)
	}
}

// TestSiteGuards: the site's maxModelCalls ends the run where the server's would go on.
func TestSiteGuards(t *testing.T) {
	call := llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "shop__stock", Args: `{"model":"Roadster"}`}}}
	var refused atomic.Int64
	f := siteFixture(t, `{"sites": [{"name": "shop", "origins": ["`+site+`"], "guards": {"maxModelCalls": 1}}]}`,
		stockServer(t), nil, &refused, llmtest.Repeat(call))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-guard", RunID: "r1", Messages: []Message{user("u1", "stock?")}})
	last := evs[len(evs)-1]
	result, _ := last["result"].(map[string]any)
	if last.typ() != EventRunFinished || result["stopReason"] != "max_iterations" {
		t.Errorf("last event %v, want RUN_FINISHED with stopReason max_iterations", last)
	}
	if n := len(f.fake.Requests()); n != 1 {
		t.Errorf("model calls %d, want 1 (the site's guard)", n)
	}
	// From an origin of no site, the server's guard (10) lets the loop go on.
	f.run(t, t.Context(), other, RunAgentInput{ThreadID: "th-guard2", RunID: "r1", Messages: []Message{user("u1", "stock?")}})
	if n := len(f.fake.Requests()); n != 1+10 {
		t.Errorf("model calls %d, want 11 (the server's guard for the second run)", n)
	}
}

// TestSiteServerTools: a site whose mcpServers is [] is offered no server tool, and a call
// of one is not run; an origin of no site gets them all.
func TestSiteServerTools(t *testing.T) {
	var refused atomic.Int64
	f := siteFixture(t, `{"sites": [{"name": "shop", "origins": ["`+site+`"], "mcpServers": []}]}`,
		stockServer(t), nil, &refused, llmtest.Script(
			llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "shop__stock", Args: `{"model":"Roadster"}`}}},
			llmtest.Step{Text: "I cannot check."},
			llmtest.Step{Text: "ok"},
		))
	_, evs := f.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-tools", RunID: "r1", Messages: []Message{user("u1", "stock?")}, Tools: []Tool{colorTool}})
	reqs := f.fake.Requests()
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Name)
	}
	if !slices.Equal(offered, []string{"set_color"}) {
		t.Errorf("offered %v on the site, want only the client's tool", offered)
	}
	for _, e := range evs {
		if e.typ() == EventToolCallStart || e.typ() == EventToolCallResult {
			t.Errorf("the client saw %v: a server tool the site does not allow", e)
		}
	}
	if last := reqs[1].LastMessage(); last.Role != "tool" || !strings.Contains(last.Content, "unknown tool") {
		t.Errorf("the model got %+v, want the call refused as unknown", last)
	}

	f.run(t, t.Context(), other, RunAgentInput{ThreadID: "th-tools2", RunID: "r1", Messages: []Message{user("u1", "stock?")}, Tools: []Tool{colorTool}})
	offered = nil
	for _, tl := range f.fake.Requests()[2].Tools {
		offered = append(offered, tl.Name)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []string{"set_color", "shop__stock"}) {
		t.Errorf("offered %v with no site, want the server's tool too", offered)
	}
}

// TestSiteBudget: once a thread used its site's tokens for the hour, the next run is refused
// with RUN_ERROR before the model is called or the message stored, and the refusal is counted.
func TestSiteBudget(t *testing.T) {
	var refused atomic.Int64
	f := siteFixture(t, `{"sites": [{"name": "shop", "origins": ["`+site+`"], "budget": {"sessionTokensPerHour": 10}}]}`,
		nil, nil, &refused, llmtest.Repeat(llmtest.Step{Text: "Sure.", Usage: &llmtest.Usage{PromptTokens: 8, CompletionTokens: 5}}))
	in := RunAgentInput{ThreadID: "th-budget", RunID: "r1", Messages: []Message{user("u1", "hi")}}
	_, evs := f.run(t, t.Context(), site, in)
	if evs[len(evs)-1].typ() != EventRunFinished {
		t.Fatalf("first run %v, want it finished", types(evs))
	}
	in.RunID = "r2"
	in.Messages = append(toAGUI(mustLoad(t, f, "th-budget")), user("u2", "more"))
	_, evs = f.run(t, t.Context(), site, in)
	if got := types(evs); !slices.Equal(got, []string{EventRunStarted, EventRunError}) {
		t.Fatalf("second run %v, want RUN_STARTED then RUN_ERROR", got)
	}
	if e := evs[1]; e.str("code") != "token_budget" || !strings.Contains(e.str("message"), "usage limit") {
		t.Errorf("RUN_ERROR %v, want code token_budget and the site budget's message for the user", e)
	}
	if n := len(f.fake.Requests()); n != 1 {
		t.Errorf("model calls %d, want 1 (the refused run calls none)", n)
	}
	if n := refused.Load(); n != 1 {
		t.Errorf("refusals counted %d, want 1", n)
	}
	if msgs := mustLoad(t, f, "th-budget"); len(msgs) != 2 {
		t.Errorf("stored %d messages, want 2 (the refused message is not kept)", len(msgs))
	}
}

// mustLoad returns the stored messages of a thread.
func mustLoad(t *testing.T, f *fixture, threadID string) []chat.Message {
	t.Helper()
	s, err := f.store.Load(t.Context(), threadKey(site, threadID))
	if err != nil {
		t.Fatal(err)
	}
	return s.Messages
}
