package agentsvc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// The token budget counts what the provider billed, however a model call ended (issue 36,
// item 1): the real openai-go client against the fake provider, which bills the way
// providers do (llmtest.Server.Billed), over the real page socket.

// siteDayLimit is the siteTokensPerDay of these tests.
const siteDayLimit = 6000

// budgetSite serves one site "shop" for testOrigin with siteDayLimit tokens a day, whose
// model is model (the server's), and returns its registry.
func budgetSite(t *testing.T, model llm.Model) (*testServer, *sites.Registry) {
	t.Helper()
	return siteServer(t, model, fmt.Sprintf(`{"sites": [{"name": "shop", "origins": [%q], "budget": {"siteTokensPerDay": %d}}]}`, testOrigin, siteDayLimit))
}

// budgetModel is the real client pointed at a fake provider, logging to logger.
func budgetModel(t *testing.T, logger *zap.Logger, opts ...llmtest.Option) (*llm.OpenAI, *llmtest.Server) {
	t.Helper()
	fake := llmtest.New(opts...)
	t.Cleanup(fake.Close)
	return llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "fake-model", Provider: "custom", MaxRetries: 2,
		Logger: logger, Sleep: func(context.Context, time.Duration) error { return nil }}), fake
}

// shopTools are page tools the size of a real shop's (a few hundred bytes of description and
// schema each): most of what a model call's prompt costs.
func shopTools() []pageTestTool {
	var out []pageTestTool
	for i := range 8 {
		tt := echoTool()
		tt.tool.Name = fmt.Sprintf("shop_tool_%d", i)
		tt.tool.Description = strings.Repeat(fmt.Sprintf("Tool %d of the shop: it filters, compares and configures the cars on this page. ", i), 4)
		out = append(out, tt)
	}
	return out
}

// counter is the value of a counter of g with the given label value (0 when absent).
func counter(t *testing.T, g prometheus.Gatherer, name, label, value string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// checkCharged asserts what the budget counted for the site "shop": at least what the fake
// provider billed, the same in byomcp_site_model_tokens_total{site="shop"} and in the
// server's byomcp_model_tokens_total, and at least the day's limit (the refusal's reason).
func checkCharged(t *testing.T, ts *testServer, reg *sites.Registry, fake *llmtest.Server, turns int) {
	t.Helper()
	fake.Settle()
	billed := fake.Billed().Total()
	day, _ := reg.Used("shop", "")
	if day < billed {
		t.Errorf("the budget counted %d tokens, the provider billed %d", day, billed)
	}
	if day < siteDayLimit {
		t.Errorf("the budget counted %d tokens, below the limit %d that refused", day, siteDayLimit)
	}
	if m := counter(t, reg.Gatherer(), "byomcp_site_model_tokens_total", "site", "shop"); int64(m) != day {
		t.Errorf("byomcp_site_model_tokens_total{site=shop} = %v, the budget counted %d", m, day)
	}
	p := counter(t, ts.Gatherer(), "byomcp_model_tokens_total", "kind", "prompt")
	c := counter(t, ts.Gatherer(), "byomcp_model_tokens_total", "kind", "completion")
	if int64(p+c) != day {
		t.Errorf("byomcp_model_tokens_total = %v prompt + %v completion, the budget counted %d", p, c, day)
	}
	t.Logf("%d turns served, then refused; billed %d, counted %d, limit %d", turns, billed, day, siteDayLimit)
}

// isOverBudget reports whether err refuses a turn over the site's budget.
func isOverBudget(err error) bool {
	var rpcErr *wsrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == wire.CodeOverBudget
}

// TestBudgetCountsTurnsCancelledAfterFirstDelta: a visitor (or a script) that stops each
// turn at its first text_delta (notifications/cancelled for its agent/chat, the widget's
// Stop) is charged what the provider billed for the cut call (the prompt and the output so
// far), and the site's budget refuses its turns once the day's tokens are used. Before,
// nothing was counted and it never refused.
func TestBudgetCountsTurnsCancelledAfterFirstDelta(t *testing.T) {
	long := strings.Repeat("Here is a long answer about the cars. ", 200)
	model, fake := budgetModel(t, zaptest.NewLogger(t), llmtest.Repeat(llmtest.Step{Text: long, ChunkDelay: 5 * time.Millisecond}))
	ts, reg := budgetSite(t, model)
	page := newFakePage(t, ts, testOrigin, shopTools()...)
	sess := page.session(wire.SessionParams{})

	const maxTurns = 30
	turns := 0
	for ; turns < maxTurns; turns++ {
		// The last turn may still be ending after its turn_end: the next starts once it has
		// ended in the server's memory too.
		waitFor(t, "the last turn to end in the server's memory", turnOverHere(ts, sess.SessionID))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			var res wire.ChatResult
			done <- page.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "tell me about the cars"}, &res)
		}()
		first := false
		var refused error
		for !first && refused == nil {
			select {
			case raw := <-page.events:
				first = strings.Contains(string(raw), `"type":"`+wire.EventTextDelta+`"`)
			case err := <-done:
				if !isOverBudget(err) {
					t.Fatalf("turn %d ended before its first text_delta: %v", turns+1, err)
				}
				refused = err
			case <-time.After(waitLimit):
				t.Fatalf("turn %d: no text_delta", turns+1)
			}
		}
		if refused != nil {
			cancel()
			break
		}
		cancel() // the page sends notifications/cancelled for its agent/chat
		<-done
		evs := page.eventsUntil(wire.EventTurnEnd)
		if end := evs[len(evs)-1]; end.StopReason != wire.StopCancelled {
			t.Fatalf("turn %d ended with %q, want cancelled", turns+1, end.StopReason)
		}
	}
	if turns == maxTurns {
		t.Fatalf("%d turns cancelled at their first text_delta were all served: the budget of %d tokens never refused", maxTurns, siteDayLimit)
	}
	if turns == 0 {
		t.Fatal("the first turn was refused")
	}
	checkCharged(t, ts, reg, fake, turns)
}

// TestBudgetCountsProviderWithoutUsage: a provider that ignores
// stream_options.include_usage is charged an estimate that is not below what it billed, is
// logged once at warning level, and the budget refuses once the day's tokens are used.
func TestBudgetCountsProviderWithoutUsage(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	answer := strings.Repeat("The red roadster is in stock and costs less than the others. ", 4)
	model, fake := budgetModel(t, zap.New(core), llmtest.WithoutUsage(), llmtest.Repeat(llmtest.Step{Text: answer}))
	ts, reg := budgetSite(t, model)
	page := newFakePage(t, ts, testOrigin, shopTools()...)
	page.session(wire.SessionParams{})

	const maxTurns = 25
	turns := 0
	for ; turns < maxTurns; turns++ {
		res, err := page.chat("which car is in stock?")
		if isOverBudget(err) {
			break
		}
		if err != nil || res.StopReason != wire.StopEnd {
			t.Fatalf("turn %d: %+v, %v", turns+1, res, err)
		}
		if res.Usage.TotalTokens == 0 {
			t.Errorf("turn %d reported no usage", turns+1)
		}
		page.eventsUntil(wire.EventTurnEnd)
	}
	if turns == maxTurns {
		t.Fatalf("%d turns of a provider that sends no usage were all served: the budget of %d tokens never refused", maxTurns, siteDayLimit)
	}
	if turns < 2 {
		t.Fatalf("refused after %d turns; want a few turns answered first, so that the warning is seen once over several", turns)
	}
	checkCharged(t, ts, reg, fake, turns)
	if n := logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("sends no token usage").Len(); n != 1 {
		t.Errorf("%d warnings that the provider sends no usage over %d turns, want 1", n, turns)
	}
}

// TestBudgetCountsCutStreams: model calls whose stream the provider cuts mid-answer (the
// turn fails) are charged too, and the budget refuses once the day's tokens are used.
func TestBudgetCountsCutStreams(t *testing.T) {
	long := strings.Repeat("word ", 300)
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Text: long, FailAfterTokens: 40}))
	t.Cleanup(fake.Close)
	model := llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "fake-model", Provider: "custom", MaxRetries: 2,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	ts, reg := budgetSite(t, model)
	page := newFakePage(t, ts, testOrigin, shopTools()...)
	page.session(wire.SessionParams{})
	turns := 0
	for ; turns < 30; turns++ {
		res, err := page.chat("go")
		if isOverBudget(err) {
			break
		}
		if err != nil || res.StopReason != wire.StopError {
			t.Fatalf("turn %d: %+v, %v; want stopReason error", turns+1, res, err)
		}
		if res.Usage.TotalTokens == 0 {
			t.Errorf("turn %d: a failed turn reported no usage", turns+1)
		}
		page.eventsUntil(wire.EventTurnEnd)
	}
	if turns == 30 {
		t.Fatal("failed turns were never refused")
	}
	checkCharged(t, ts, reg, fake, turns)
}
