package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// sleepRecorder is an Options.Sleep that records the waits and does not wait.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func (s *sleepRecorder) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newModel returns a model pointed at srv whose retries do not wait.
func newModel(srv *llmtest.Server, o llm.Options) (*llm.OpenAI, *sleepRecorder) {
	rec := &sleepRecorder{}
	o.BaseURL = srv.URL
	o.HTTPClient = srv.Client()
	if o.APIKey == "" {
		o.APIKey = "test-key"
	}
	if o.Model == "" {
		o.Model = "test-model"
	}
	if o.Provider == "" {
		o.Provider = llm.ProviderCustom
	}
	if o.Sleep == nil {
		o.Sleep = rec.Sleep
	}
	return llm.NewOpenAI(o), rec
}

var hello = llm.Request{Messages: []chat.Message{
	{Role: chat.RoleSystem, Content: "You help."},
	{Role: chat.RoleUser, Content: "Hi"},
}}

// llmError asserts that err is an *llm.Error and returns it.
func llmError(t *testing.T, err error) *llm.Error {
	t.Helper()
	if err == nil {
		t.Fatal("got no error")
	}
	e, ok := llm.AsError(err)
	if !ok {
		t.Fatalf("got %T %v, want *llm.Error", err, err)
	}
	return e
}

func TestStreamText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{
		Text:  "Hello there, how can I help?",
		Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 6},
	})
	m, _ := newModel(srv, llm.Options{})
	var deltas []string
	resp, err := m.Stream(t.Context(), hello, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Hello ", "there, ", "how ", "can ", "I ", "help?"}
	if strings.Join(deltas, "|") != strings.Join(want, "|") {
		t.Errorf("deltas: got %q, want %q", deltas, want)
	}
	if resp.Text != "Hello there, how can I help?" || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Errorf("response: got %+v", resp)
	}
	if want := (chat.Usage{PromptTokens: 12, CompletionTokens: 6, TotalTokens: 18}); resp.Usage != want {
		t.Errorf("usage: got %+v, want %+v", resp.Usage, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests: got %d, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || !r.IncludeUsage || r.Model != "test-model" {
		t.Errorf("request: stream %v include_usage %v model %q", r.Stream, r.IncludeUsage, r.Model)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Content != "Hi" {
		t.Errorf("messages: got %+v", r.Messages)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("authorization: got %q", got)
	}
}

func TestStreamParallelToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{
		Text: "Let me look.",
		ToolCalls: []llmtest.FakeCall{
			{ID: "call_1", Name: "filter_cars", Args: `{"color":"red","max_price":30000,"brands":["VW","Fiat"]}`},
			{ID: "call_2", Name: "get_weather", Args: `{"city":"Zürich, Schweiz"}`},
		},
	})
	m, _ := newModel(srv, llm.Options{})
	req := hello
	req.Tools = []chat.ToolDef{
		{Name: "filter_cars", Description: "Filter the list", Parameters: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]}}}`)},
		{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object"}`)},
	}
	resp, err := m.Stream(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{
		{ID: "call_1", Name: "filter_cars", Arguments: `{"color":"red","max_price":30000,"brands":["VW","Fiat"]}`},
		{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Zürich, Schweiz"}`},
	}
	if len(resp.ToolCalls) != len(want) {
		t.Fatalf("tool calls: got %+v, want %+v", resp.ToolCalls, want)
	}
	for i := range want {
		got := resp.ToolCalls[i]
		if got.ID != want[i].ID || got.Name != want[i].Name || got.Arguments != want[i].Arguments || got.Extra != nil {
			t.Errorf("tool call %d: got %+v, want %+v", i, got, want[i])
		}
	}
	if resp.FinishReason != "tool_calls" || resp.Text != "Let me look." {
		t.Errorf("finish %q text %q", resp.FinishReason, resp.Text)
	}
	tools := srv.Requests()[0].Tools
	if len(tools) != 2 || tools[0].Name != "filter_cars" || tools[0].Description != "Filter the list" ||
		string(tools[0].Parameters) != string(req.Tools[0].Parameters) {
		t.Errorf("tools sent: got %+v", tools)
	}
}

func TestExtraEchoedBack(t *testing.T) {
	const extra = `{"google":{"thought_signature":"c2lnbmF0dXJl"}}`
	srv := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{
			ID: "call_g", Name: "lookup", Args: `{"q":"x"}`,
			Extra: json.RawMessage(`{"extra_content":` + extra + `}`),
		}}},
		llmtest.Step{Text: "Done."},
	)
	m, _ := newModel(srv, llm.Options{Provider: llm.ProviderGemini})
	first, err := m.Stream(t.Context(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 1 {
		t.Fatalf("tool calls: got %+v", first.ToolCalls)
	}
	if got := string(first.ToolCalls[0].Extra["extra_content"]); got != extra {
		t.Fatalf("captured extra: got %s, want %s", got, extra)
	}

	req := hello
	req.Messages = append(req.Messages,
		chat.Message{Role: chat.RoleAssistant, ToolCalls: first.ToolCalls},
		chat.Message{Role: chat.RoleTool, ToolCallID: "call_g", Name: "lookup", Content: "42"},
	)
	if _, err := m.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[1]
	if len(sent.Messages) != 4 {
		t.Fatalf("messages: got %d, want 4", len(sent.Messages))
	}
	var asst struct {
		ToolCalls []struct {
			ID           string `json:"id"`
			ExtraContent struct {
				Google struct {
					ThoughtSignature string `json:"thought_signature"`
				} `json:"google"`
			} `json:"extra_content"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(sent.Messages[2].Raw, &asst); err != nil {
		t.Fatal(err)
	}
	if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ExtraContent.Google.ThoughtSignature != "c2lnbmF0dXJl" {
		t.Fatalf("assistant message sent: %s, want extra_content.google.thought_signature", sent.Messages[2].Raw)
	}
	if tr := sent.Messages[3]; tr.Role != "tool" || tr.ToolCallID != "call_g" || tr.Content != "42" {
		t.Errorf("tool result sent: got %+v", tr)
	}
}

func TestRetryAfter429(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{Status: http.StatusTooManyRequests, RetryAfter: "7", Message: "slow down"},
		llmtest.Step{Text: "ok"},
	)
	m, rec := newModel(srv, llm.Options{})
	resp, err := m.Stream(t.Context(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" {
		t.Errorf("text: got %q", resp.Text)
	}
	if got := rec.Waits(); len(got) != 1 || got[0] != 7*time.Second {
		t.Errorf("waits: got %v, want [7s]", got)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests: got %d, want 2", n)
	}
}

func TestRetryBackoffThenGiveUp(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{Status: 503}, llmtest.Step{Status: 502}, llmtest.Step{Status: 500},
	)
	m, rec := newModel(srv, llm.Options{MaxRetries: 2})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if e.Status != 500 || !e.Retryable || !strings.Contains(e.Message, "unavailable") {
		t.Errorf("error: got %+v", e)
	}
	waits := rec.Waits()
	if len(waits) != 2 {
		t.Fatalf("waits: got %v, want 2", waits)
	}
	for i, w := range waits {
		full := 500 * time.Millisecond << i
		if w < full/2 || w > full {
			t.Errorf("wait %d: got %s, want within [%s, %s]", i, w, full/2, full)
		}
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 429, RetryAfter: "3600"}, llmtest.Step{Text: "unused"})
	m, rec := newModel(srv, llm.Options{})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if e.Status != 429 || !e.Retryable || !strings.Contains(e.Message, "1h0m0s") {
		t.Errorf("error: got %+v", e)
	}
	if len(rec.Waits()) != 0 {
		t.Errorf("waited %v for an hour-long Retry-After", rec.Waits())
	}
}

func TestErrorAfterFirstTokenNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{Text: "Hello world again", Status: 500, Message: "overloaded", FailAfterTokens: 1},
		llmtest.Step{Text: "a retry would get this"},
	)
	m, rec := newModel(srv, llm.Options{})
	var deltas []string
	_, err := m.Stream(t.Context(), hello, func(d string) { deltas = append(deltas, d) })
	e := llmError(t, err)
	if e.Status != 500 || !strings.Contains(e.Message, "overloaded") {
		t.Errorf("error: got %+v", e)
	}
	if len(deltas) != 1 || deltas[0] != "Hello " {
		t.Errorf("deltas: got %q", deltas)
	}
	if n := len(srv.Requests()); n != 1 || len(rec.Waits()) != 0 {
		t.Errorf("requests %d waits %v: the call was retried after text was streamed", n, rec.Waits())
	}
}

func TestCutStream(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{Text: "one two three", FailAfterTokens: 2},
		llmtest.Step{Text: "a retry would get this"},
	)
	m, _ := newModel(srv, llm.Options{})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if !e.Retryable || e.Status != 0 {
		t.Errorf("error: got %+v, want retryable without status", e)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("requests: got %d, want 1 (no retry after text)", n)
	}
}

func TestCutBeforeTextIsRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "f", Args: `{"a":"bbbbbbbbbbbbbbbb"}`}}, FailAfterTokens: 2},
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_ok", Name: "f", Args: `{"a":1}`}}},
	)
	m, rec := newModel(srv, llm.Options{})
	resp, err := m.Stream(t.Context(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_ok" || resp.ToolCalls[0].Arguments != `{"a":1}` {
		t.Errorf("tool calls: got %+v, want only the retried call", resp.ToolCalls)
	}
	if len(rec.Waits()) != 1 {
		t.Errorf("waits: got %v, want 1", rec.Waits())
	}
}

func TestStatusErrors(t *testing.T) {
	tests := []struct {
		status    int
		message   string
		wantMsg   string
		retryable bool
	}{
		{401, "Incorrect API key provided: sk-abc***xyz", "the model API rejected the key", false},
		{403, "", "the model API refused access with this key", false},
		{404, "The model does not exist", `model not found: "test-model"`, false},
		{400, "Invalid schema for function", "the model API rejected the request: Invalid schema for function", false},
		{503, "", "the model API is unavailable", true},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Step{Status: tt.status, Message: tt.message})
			m, _ := newModel(srv, llm.Options{MaxRetries: -1})
			_, err := m.Stream(t.Context(), hello, nil)
			e := llmError(t, err)
			if e.Status != tt.status || e.Retryable != tt.retryable || !strings.HasPrefix(e.Message, tt.wantMsg) {
				t.Errorf("got %+v, want status %d retryable %v message %q", e, tt.status, tt.retryable, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "sk-abc") {
				t.Errorf("error %q repeats part of the key", err)
			}
		})
	}
}

func Test401IsNotRetried(t *testing.T) {
	srv := llmtest.New(llmtest.WithAPIKey("the-right-key"), llmtest.Repeat(llmtest.Step{Text: "unused"}))
	defer srv.Close()
	m, rec := newModel(srv, llm.Options{APIKey: "a-wrong-key"})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if e.Status != 401 || e.Retryable || e.Message != "the model API rejected the key" {
		t.Errorf("error: got %+v", e)
	}
	if got := err.Error(); got != "llm: the model API rejected the key (HTTP 401)" {
		t.Errorf("Error(): got %q", got)
	}
	if n := len(srv.Requests()); n != 1 || len(rec.Waits()) != 0 {
		t.Errorf("requests %d waits %v, want one request", n, rec.Waits())
	}
}

func TestInsufficientQuotaNotRetried(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`))
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	rec := &sleepRecorder{}
	m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, APIKey: "k", Sleep: rec.Sleep})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if e.Status != 429 || e.Retryable || e.Message != "the model API account has no quota left" {
		t.Errorf("error: got %+v", e)
	}
	if len(rec.Waits()) != 0 {
		t.Errorf("waits: got %v, want none", rec.Waits())
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>Bad gateway</html>"))
	}))
	defer srv.Close()
	m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, APIKey: "k", MaxRetries: -1})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if e.Status != 502 || !e.Retryable {
		t.Errorf("error: got %+v, want 502 retryable", e)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	rec := &sleepRecorder{}
	m := llm.NewOpenAI(llm.Options{BaseURL: url, APIKey: "k", Sleep: rec.Sleep, MaxRetries: 2})
	_, err := m.Stream(t.Context(), hello, nil)
	e := llmError(t, err)
	if !e.Retryable || !strings.HasPrefix(e.Message, "cannot reach the model API at 127.0.0.1:") {
		t.Errorf("error: got %+v", e)
	}
	if len(rec.Waits()) != 2 {
		t.Errorf("waits: got %v, want 2 retries", rec.Waits())
	}
	// A connection that could not be made never reached the model: it is tried again
	// after milliseconds, not after the half second of other retries.
	for _, w := range rec.Waits() {
		if w >= 100*time.Millisecond {
			t.Errorf("wait before retrying a refused connection: got %s, want under 100ms", w)
		}
	}
}

// TestProviderQuirks feeds chunks as some providers send them: every call numbered 0 with
// its own id, and finish_reason "stop" for an answer with tool calls.
func TestProviderQuirks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"g","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		} {
			_, _ = w.Write([]byte("data: " + c + "\n\n"))
		}
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	}))
	defer srv.Close()
	m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, APIKey: "k"})
	resp, err := m.Stream(t.Context(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].ID != "a" || resp.ToolCalls[1].ID != "b" ||
		resp.ToolCalls[1].Name != "g" || resp.ToolCalls[1].Arguments != "{}" {
		t.Errorf("tool calls: got %+v", resp.ToolCalls)
	}
	if resp.FinishReason != "tool_calls" {
		t.Errorf("finish: got %q, want tool_calls", resp.FinishReason)
	}
}

func TestBadRequestInput(t *testing.T) {
	srv := llmtest.NewServer(t)
	m, _ := newModel(srv, llm.Options{})
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"unknown role", llm.Request{Messages: []chat.Message{{Role: "robot", Content: "x"}}}},
		{"parameters not an object", llm.Request{Messages: hello.Messages, Tools: []chat.ToolDef{{Name: "f", Parameters: json.RawMessage(`[1]`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Stream(t.Context(), tt.req, nil)
			if e := llmError(t, err); e.Retryable {
				t.Errorf("got retryable %+v", e)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("requests: got %d, want none sent", n)
	}
}

func TestName(t *testing.T) {
	if got := llm.NewOpenAI(llm.Options{APIKey: "k"}).Name(); got != "openai gpt-4o-mini" {
		t.Errorf("got %q", got)
	}
	if got := llm.NewOpenAI(llm.Options{BaseURL: "http://localhost:8000/v1", Model: "qwen"}).Name(); got != "custom qwen" {
		t.Errorf("got %q", got)
	}
}

// TestIdleTimeout runs on the fake clock: the stream stalls after one token and the call
// ends with a retryable error exactly one IdleTimeout later.
func TestIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(
			llmtest.Step{Text: "Hello world", Stall: true, FailAfterTokens: 1},
			llmtest.Step{Text: "a retry would get this"},
		))
		defer srv.Close()
		m, _ := newModel(srv, llm.Options{IdleTimeout: 30 * time.Second})
		start := time.Now()
		var deltas []string
		_, err := m.Stream(t.Context(), hello, func(d string) { deltas = append(deltas, d) })
		e := llmError(t, err)
		if !e.Retryable || !strings.Contains(e.Message, "stalled") {
			t.Errorf("error: got %+v", e)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("fake time until the error: got %s, want 30s", got)
		}
		if len(deltas) != 1 || len(srv.Requests()) != 1 {
			t.Errorf("deltas %q requests %d, want one token and no retry", deltas, len(srv.Requests()))
		}
	})
}

// TestStallBeforeTextIsRetried: a stall before any text is retried, on the real timer
// (fake clock) between attempts.
func TestStallBeforeTextIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(
			llmtest.Step{Stall: true},
			llmtest.Step{Text: "fine"},
		))
		defer srv.Close()
		m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: "k", IdleTimeout: time.Second})
		resp, err := m.Stream(t.Context(), hello, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "fine" || len(srv.Requests()) != 2 {
			t.Errorf("text %q requests %d", resp.Text, len(srv.Requests()))
		}
	})
}

func TestRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(llmtest.Step{
			Text: "a b c d e f", ChunkDelay: 4 * time.Second,
		}))
		defer srv.Close()
		m, _ := newModel(srv, llm.Options{RequestTimeout: 10 * time.Second})
		start := time.Now()
		_, err := m.Stream(t.Context(), hello, nil)
		e := llmError(t, err)
		if !e.Retryable || !strings.Contains(e.Message, "took longer than 10s") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error: got %+v", e)
		}
		if got := time.Since(start); got != 10*time.Second {
			t.Errorf("fake time until the error: got %s, want 10s", got)
		}
	})
}

// TestCancelStopsStream cancels while the server stalls: on the fake clock, Stream must
// have returned before any time passes.
func TestCancelStopsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(llmtest.Step{Text: "first second", Stall: true, FailAfterTokens: 1}))
		defer srv.Close()
		m, _ := newModel(srv, llm.Options{IdleTimeout: time.Hour})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		gotDelta := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := m.Stream(ctx, hello, func(string) { close(gotDelta) })
			done <- err
		}()
		<-gotDelta
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Stream returned before the cancel: %v", err)
		default:
		}
		start := time.Now()
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			e := llmError(t, err)
			if !errors.Is(err, context.Canceled) || e.Retryable || e.Message != "the model call was cancelled" {
				t.Errorf("error: got %+v", e)
			}
		default:
			t.Fatal("Stream still running after cancel")
		}
		if got := time.Since(start); got != 0 {
			t.Errorf("fake time passed after cancel: %s", got)
		}
	})
}

func TestRetryAfterHeader(t *testing.T) {
	// Exercised through the server: an HTTP-date Retry-After is waited relative to now.
	synctest.Test(t, func(t *testing.T) {
		date := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
		srv := llmtest.NewInMemory(llmtest.Script(
			llmtest.Step{Status: 429, RetryAfter: date},
			llmtest.Step{Text: "ok"},
		))
		defer srv.Close()
		m, rec := newModel(srv, llm.Options{})
		if _, err := m.Stream(t.Context(), hello, nil); err != nil {
			t.Fatal(err)
		}
		if got := rec.Waits(); len(got) != 1 || got[0] != 5*time.Second {
			t.Errorf("waits: got %v, want [5s]", got)
		}
	})
}

// TestSlowStreamWithinIdleTimeout: each chunk comes 25s after the previous one, under
// the 30s idle timeout, so the call succeeds although the whole stream takes longer.
func TestSlowStreamWithinIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewInMemory(llmtest.Script(llmtest.Step{Text: "slow but steady", ChunkDelay: 25 * time.Second}))
		defer srv.Close()
		m, _ := newModel(srv, llm.Options{IdleTimeout: 30 * time.Second, RequestTimeout: time.Hour})
		start := time.Now()
		resp, err := m.Stream(t.Context(), hello, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "slow but steady" {
			t.Errorf("text: got %q", resp.Text)
		}
		if elapsed := time.Since(start); elapsed <= 30*time.Second {
			t.Errorf("fake time: got %s, want the stream to outlast one idle timeout", elapsed)
		}
	})
}

// TestToolCallsWithoutIDsGetUniqueIDs: a model (or a wrapper of one) that streams tool calls
// without ids gets ids unique across responses: the history holds every response's calls,
// and "call_0" of each would repeat.
func TestToolCallsWithoutIDsGetUniqueIDs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"tool_calls":[`+
			`{"index":0,"type":"function","function":{"name":"a","arguments":"{}"}},`+
			`{"index":1,"type":"function","function":{"name":"b","arguments":"{}"}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	m := llm.NewOpenAI(llm.Options{BaseURL: srv.URL, APIKey: "k", Model: "m"})
	seen := map[string]bool{}
	for range 2 {
		resp, err := m.Stream(t.Context(), hello, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 2 {
			t.Fatalf("tool calls %+v, want 2", resp.ToolCalls)
		}
		for _, c := range resp.ToolCalls {
			if !strings.HasPrefix(c.ID, "call_") || len(c.ID) < len("call_")+8 || seen[c.ID] {
				t.Errorf("id %q: want a new call_ id", c.ID)
			}
			seen[c.ID] = true
		}
	}
}
