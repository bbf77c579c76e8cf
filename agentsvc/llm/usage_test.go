package llm_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// noUsageWarnings counts the warnings that the provider sends no usage.
func noUsageWarnings(logs *observer.ObservedLogs) int {
	return logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("sends no token usage").Len()
}

// TestUsageOnEveryPath: whatever way a model call ends, Stream returns what the fake
// provider billed for it (its prompt and the completion it generated, read or not): the
// provider's count when it sent one, else an estimate that is not below it, flagged as
// estimated; a call refused with an error status returns no usage. The calls run on the
// fake clock over in-memory pipes.
func TestUsageOnEveryPath(t *testing.T) {
	long := strings.Repeat("word ", 400)
	tests := []struct {
		name      string
		opts      []llmtest.Option
		model     llm.Options
		cancelOn  bool          // cancel the call at its first text delta
		timeout   time.Duration // the caller's deadline (fake time), 0 for none
		wantErr   bool
		estimated bool
		free      bool // the provider billed nothing
	}{
		{name: "reported", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: "Hello there, friend."})}},
		{name: "provider sends no usage", opts: []llmtest.Option{llmtest.WithoutUsage(), llmtest.Script(llmtest.Step{Text: "Hello there, friend."})}, estimated: true},
		{name: "no usage, tool calls", opts: []llmtest.Option{llmtest.WithoutUsage(), llmtest.Script(llmtest.Step{
			ToolCalls: []llmtest.FakeCall{{Name: "filter_cars", Args: `{"color":"red","max_price":30000}`}, {Name: "compare", Args: `{"ids":[1,2,3]}`}},
		})}, estimated: true},
		{name: "cancelled after the first delta", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, ChunkDelay: time.Second})},
			cancelOn: true, wantErr: true, estimated: true},
		{name: "cancelled after the first delta, stalled", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, FailAfterTokens: 1, Stall: true})},
			model: llm.Options{IdleTimeout: time.Hour}, cancelOn: true, wantErr: true, estimated: true},
		{name: "cancelled before any output", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, Stall: true})},
			model: llm.Options{IdleTimeout: time.Hour}, timeout: time.Minute, wantErr: true, estimated: true},
		{name: "cut mid-stream", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, FailAfterTokens: 30})},
			wantErr: true, estimated: true},
		{name: "error event mid-stream", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, FailAfterTokens: 30, Status: 500, Message: "overloaded"})},
			wantErr: true, estimated: true},
		{name: "request timeout mid-stream", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, ChunkDelay: time.Second})},
			model: llm.Options{RequestTimeout: 20 * time.Second}, wantErr: true, estimated: true},
		{name: "stalled before output, retried", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Text: long, Stall: true}, llmtest.Step{Text: "fine"})},
			model: llm.Options{IdleTimeout: time.Second}, estimated: true},
		{name: "stalled on every attempt", opts: []llmtest.Option{llmtest.Repeat(llmtest.Step{Text: long, Stall: true})},
			model: llm.Options{IdleTimeout: time.Second, MaxRetries: 2}, wantErr: true, estimated: true},
		{name: "refused with 429", opts: []llmtest.Option{llmtest.Repeat(llmtest.Step{Status: 429})},
			model: llm.Options{MaxRetries: 2}, wantErr: true, free: true},
		{name: "429 then answered", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Status: 503}, llmtest.Step{Text: "ok then"})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := llmtest.NewInMemory(tc.opts...)
				defer srv.Close()
				core, logs := observer.New(zapcore.DebugLevel)
				tc.model.Logger = zap.New(core)
				m, _ := newModel(srv, tc.model)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.timeout > 0 {
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				var onDelta func(string)
				if tc.cancelOn {
					onDelta = func(string) { cancel() }
				}
				resp, err := m.Stream(ctx, hello, onDelta)
				if (err != nil) != tc.wantErr {
					t.Fatalf("error %v, want an error: %v", err, tc.wantErr)
				}
				srv.Settle()
				billed := srv.Billed()
				if tc.free {
					if billed.Total() != 0 || resp != nil {
						t.Fatalf("billed %+v, returned %+v; want nothing billed and no usage", billed, resp)
					}
					return
				}
				if billed.Total() == 0 {
					t.Fatalf("the fake billed nothing: the case tests nothing")
				}
				if resp == nil {
					t.Fatalf("got no usage with %v; the provider billed %+v", err, billed)
				}
				u := resp.Usage
				if got := u.PromptTokens + u.CompletionTokens; got < billed.Total() || u.TotalTokens != got {
					t.Errorf("usage %+v (estimated %v), want a total of at least the %d billed (%+v)", u, resp.UsageEstimated, billed.Total(), billed)
				}
				if resp.UsageEstimated != tc.estimated {
					t.Errorf("estimated = %v, want %v", resp.UsageEstimated, tc.estimated)
				}
				if !tc.estimated && (u.PromptTokens != billed.PromptTokens || u.CompletionTokens != billed.CompletionTokens) {
					t.Errorf("usage %+v, want exactly the provider's %+v", u, billed)
				}
				if tc.wantErr && (resp.Text != "" || resp.ToolCalls != nil || resp.FinishReason != "") {
					t.Errorf("a failed call returned %+v, want only its usage", resp)
				}
				if n := noUsageWarnings(logs); n != 0 && tc.name != "provider sends no usage" && tc.name != "no usage, tool calls" {
					t.Errorf("%d warnings that the provider sends no usage, want none: its streams ended early", n)
				}
			})
		})
	}
}

// TestEstimateOfThePrompt: a call cut before any output is charged the estimate of its
// request body (one token per llm.BytesPerToken bytes), which is above what the provider
// billed for the prompt of a page with tools.
func TestEstimateOfThePrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(llmtest.Step{Text: "never sent", Stall: true}))
		defer srv.Close()
		m, _ := newModel(srv, llm.Options{IdleTimeout: time.Hour})
		req := hello
		req.Tools = []chat.ToolDef{{Name: "filter_cars", Description: "Filter the cars on the page by color, price and body style.",
			Parameters: []byte(`{"type":"object","properties":{"color":{"type":"string","enum":["red","blue","black"]},"max_price":{"type":"number"}}}`)}}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		resp, err := m.Stream(ctx, req, nil)
		if err == nil || resp == nil {
			t.Fatalf("got %+v, %v; want the error with the usage", resp, err)
		}
		srv.Settle()
		body := srv.Requests()[0].Body
		want := llm.EstimateTokens(len(body))
		if resp.Usage.PromptTokens != want || resp.Usage.CompletionTokens != 0 || !resp.UsageEstimated {
			t.Errorf("usage %+v (estimated %v), want prompt %d (%d bytes of body) and no completion", resp.Usage, resp.UsageEstimated, want, len(body))
		}
		if billed := srv.Billed(); billed.PromptTokens == 0 || billed.PromptTokens > want || billed.CompletionTokens != 0 {
			t.Errorf("the fake billed %+v, want a prompt not above the estimate %d", billed, want)
		}
	})
}

// TestNoUsageWarnedOnce: a provider that sends no usage is logged at warning level once,
// however many calls; one that sends it never is.
func TestNoUsageWarnedOnce(t *testing.T) {
	for _, omit := range []bool{true, false} {
		opts := []llmtest.Option{llmtest.Repeat(llmtest.Step{Text: "Hello again."})}
		if omit {
			opts = append(opts, llmtest.WithoutUsage())
		}
		srv := llmtest.New(opts...)
		core, logs := observer.New(zapcore.InfoLevel)
		m, _ := newModel(srv, llm.Options{Logger: zap.New(core)})
		var sum chat.Usage
		for range 3 {
			resp, err := m.Stream(t.Context(), hello, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.UsageEstimated != omit {
				t.Errorf("omit %v: estimated = %v", omit, resp.UsageEstimated)
			}
			sum = sum.Add(resp.Usage)
		}
		srv.Close()
		want := 0
		if omit {
			want = 1
		}
		if n := noUsageWarnings(logs); n != want {
			t.Errorf("omit %v: %d warnings that the provider sends no usage, want %d", omit, n, want)
		}
		if billed := srv.Billed(); sum.TotalTokens < billed.Total() {
			t.Errorf("omit %v: counted %d tokens, the provider billed %d", omit, sum.TotalTokens, billed.Total())
		}
	}
}

// TestUsageOfAnUnansweredRequest: a call cancelled after its request went out but before any
// answer (the provider reading a long prompt) is charged the prompt's estimate; one whose
// connection was refused is charged nothing.
func TestUsageOfAnUnansweredRequest(t *testing.T) {
	bodies := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- len(b)
		<-r.Context().Done() // no answer until the client goes away
	}))
	defer srv.Close()
	m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, APIKey: "k", MaxRetries: -1})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	var (
		resp *llm.Response
		err  error
	)
	go func() {
		defer close(done)
		resp, err = m.Stream(ctx, hello, nil)
	}()
	n := <-bodies
	cancel()
	<-done
	if err == nil || resp == nil {
		t.Fatalf("got %+v, %v; want the cancellation with the prompt's usage", resp, err)
	}
	if want := llm.EstimateTokens(n); resp.Usage.PromptTokens != want || resp.Usage.CompletionTokens != 0 || !resp.UsageEstimated {
		t.Errorf("usage %+v (estimated %v), want the estimate %d of the %d-byte request", resp.Usage, resp.UsageEstimated, want, n)
	}

	url := srv.URL
	srv.Close() // nothing listens there now
	m = llm.NewOpenAI(llm.Options{BaseURL: url, APIKey: "k", MaxRetries: -1})
	resp, err = m.Stream(t.Context(), hello, nil)
	if err == nil || resp != nil {
		t.Errorf("connection refused: got %+v, %v; want an error and no usage", resp, err)
	}
}
