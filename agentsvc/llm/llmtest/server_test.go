package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// post sends a chat completions request body and returns the response.
func post(t *testing.T, s *llmtest.Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// events reads an SSE body: the data payloads in order, and whether the body ended cleanly.
func events(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, data)
		}
	}
	return out, sc.Err()
}

const userOnly = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

func TestStreamWireFormat(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Step{
		Text: "Hi there",
		ToolCalls: []llmtest.FakeCall{
			{ID: "call_a", Name: "alpha", Args: `{"query":"red cars"}`,
				Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig"}}}`)},
			{Name: "beta", Args: `{"n":12345678901}`},
		},
		Usage: &llmtest.Usage{PromptTokens: 11, CompletionTokens: 7},
	})
	res := post(t, s, userOnly)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type: got %q", ct)
	}
	data, err := events(t, res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := data[len(data)-1]; got != "[DONE]" {
		t.Fatalf("last event: got %q, want [DONE]", got)
	}
	type delta struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			Index    int             `json:"index"`
			ID       string          `json:"id"`
			Extra    json.RawMessage `json:"extra_content"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	type chunk struct {
		Object  string `json:"object"`
		Choices []struct {
			Delta        delta   `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens int64 `json:"prompt_tokens"`
			TotalTokens  int64 `json:"total_tokens"`
		} `json:"usage"`
	}
	var (
		text       strings.Builder
		args       = map[int]string{}
		ids        = map[int]string{}
		indexOrder []int
		finish     string
		usage      int64
		extra      string
	)
	for i, d := range data[:len(data)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Fatalf("event %d object: got %q", i, c.Object)
		}
		if c.Usage != nil {
			usage = c.Usage.TotalTokens
			if len(c.Choices) != 0 {
				t.Fatalf("usage chunk has choices")
			}
			continue
		}
		ch := c.Choices[0]
		if i == 0 && ch.Delta.Role != "assistant" {
			t.Fatalf("first chunk role: got %q", ch.Delta.Role)
		}
		text.WriteString(ch.Delta.Content)
		for _, tc := range ch.Delta.ToolCalls {
			indexOrder = append(indexOrder, tc.Index)
			args[tc.Index] += tc.Function.Arguments
			if tc.ID != "" {
				ids[tc.Index] = tc.ID
			}
			if len(tc.Extra) > 0 {
				extra = string(tc.Extra)
			}
		}
		if ch.FinishReason != nil {
			finish = *ch.FinishReason
		}
	}
	if text.String() != "Hi there" {
		t.Errorf("text: got %q", text.String())
	}
	if args[0] != `{"query":"red cars"}` || args[1] != `{"n":12345678901}` {
		t.Errorf("arguments: got %v", args)
	}
	if ids[0] != "call_a" || ids[1] == "" || ids[1] == "call_a" {
		t.Errorf("ids: got %v", ids)
	}
	if extra != `{"google":{"thought_signature":"sig"}}` {
		t.Errorf("extra_content: got %s", extra)
	}
	// Interleaved: the second call starts before the first one's arguments are complete.
	if len(indexOrder) < 4 || indexOrder[0] != 0 || indexOrder[1] != 1 || indexOrder[2] != 0 {
		t.Errorf("tool-call chunk order: got %v, want interleaved 0,1,0,…", indexOrder)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason: got %q", finish)
	}
	if usage != 18 {
		t.Errorf("total_tokens: got %d, want 18", usage)
	}
}

func TestScriptExhausted(t *testing.T) {
	s := llmtest.NewServer(t)
	res := post(t, s, userOnly)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "no scripted step left for request #1") {
		t.Fatalf("got %d %s, want 500 saying the script ran out", res.StatusCode, body)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"unanswered tool call",
			`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"y"}]}`,
			"did not have response messages: c1"},
		{"unanswered at the end",
			`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			"did not have response messages: c2"},
		{"stray tool result",
			`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"zz","content":"ok"}]}`,
			"must be a response to a preceeding message"},
		{"bad tool name",
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a.b","parameters":{}}}]}`,
			"tools[].function.name"},
		{"no model", `{"messages":[{"role":"user","content":"x"}]}`, "model parameter"},
		{"not json", `{`, "could not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t, llmtest.Step{Text: "unused"})
			res := post(t, s, tt.body)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tt.want) {
				t.Fatalf("got %d %s, want 400 with %q", res.StatusCode, body, tt.want)
			}
		})
	}
}

func TestRepeatMakesFreshIDs(t *testing.T) {
	s := llmtest.New(llmtest.Repeat(llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "again", Args: "{}"}}}))
	defer s.Close()
	seen := map[string]bool{}
	for i := range 3 {
		res := post(t, s, `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
		var c struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						ID string `json:"id"`
					} `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		id := c.Choices[0].Message.ToolCalls[0].ID
		if id == "" || seen[id] {
			t.Fatalf("request %d: id %q is empty or repeated", i, id)
		}
		seen[id] = true
		if c.Choices[0].FinishReason != "tool_calls" {
			t.Fatalf("finish_reason: got %q", c.Choices[0].FinishReason)
		}
	}
}

func TestResponderSeesRequest(t *testing.T) {
	s := llmtest.New(
		llmtest.Script(llmtest.Step{Text: "scripted"}),
		llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
			return llmtest.Step{Text: "echo " + req.LastMessage().Content}
		}))
	defer s.Close()
	for _, want := range []string{"scripted", "echo two"} {
		res := post(t, s, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"two"}]}]}`)
		var c struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		if got := c.Choices[0].Message.Content; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[1].Messages[0].Content != "two" || reqs[1].Header.Get("Authorization") != "Bearer k" {
		t.Fatalf("recorded: got %+v", reqs)
	}
}

func TestCutStreamHasNoDone(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Step{Text: "a b c d", FailAfterTokens: 2})
	res := post(t, s, userOnly)
	data, err := events(t, res.Body)
	if err == nil {
		t.Errorf("body ended cleanly, want a broken connection")
	}
	if len(data) != 3 { // role chunk + 2 content chunks
		t.Fatalf("events: got %d %q, want 3", len(data), data)
	}
	for _, d := range data {
		if d == "[DONE]" || strings.Contains(d, `"finish_reason":"`) {
			t.Fatalf("cut stream sent %q", d)
		}
	}
}

func TestErrorEventMidStream(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Step{Text: "a b", Status: 500, Message: "boom", FailAfterTokens: 1})
	res := post(t, s, userOnly)
	data, err := events(t, res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 3 || !strings.Contains(data[2], `"error"`) || !strings.Contains(data[2], "boom") {
		t.Fatalf("events: got %q, want role, one token, an error event", data)
	}
}

func TestStatusStep(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Step{Status: 429, RetryAfter: "3", Message: "slow down"})
	res := post(t, s, userOnly)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "3" || !strings.Contains(string(body), "slow down") {
		t.Fatalf("got %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}

func TestAPIKey(t *testing.T) {
	s := llmtest.New(llmtest.WithAPIKey("right"), llmtest.Script(llmtest.Step{Text: "x"}))
	defer s.Close()
	res := post(t, s, userOnly) // sends "Bearer k"
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status: got %d, want 401", res.StatusCode)
	}
}

// TestInMemoryStallOnFakeTime runs the server over pipes in a synctest bubble: a stalled
// stream holds until the client gives up, and the fake clock shows how long that was.
func TestInMemoryStallOnFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := llmtest.NewInMemory(llmtest.Script(llmtest.Step{Text: "a b", Stall: true, FailAfterTokens: 1}))
		defer s.Close()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(userOnly))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		data, err := events(t, res.Body)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("read error: got %v, want the client's deadline", err)
		}
		if len(data) != 2 {
			t.Fatalf("events before the stall: got %q, want role and one token", data)
		}
		if got := time.Since(start); got != time.Minute {
			t.Fatalf("fake time at give-up: got %s, want 1m0s", got)
		}
	})
}

func TestConcurrentRequestsNoRecording(t *testing.T) {
	s := llmtest.New(llmtest.NoRecording(), llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.LastMessage().Role == "tool" {
			return llmtest.Step{Text: "done"}
		}
		return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "f", Args: `{"a":1}`}}}
	}))
	defer s.Close()
	const n = 16
	errs := make(chan error, n)
	for range n {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/chat/completions", strings.NewReader(userOnly))
			res, err := s.Client().Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer func() { _ = res.Body.Close() }()
			b, err := io.ReadAll(res.Body)
			if err == nil && !strings.Contains(string(b), `"name":"f"`) {
				err = errors.New("no tool call in " + string(b))
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("recorded %d requests, want none", got)
	}
}
