// Package llmtest is a fake OpenAI-compatible Chat Completions server for tests and load
// generators: it streams scripted SSE answers exactly like the real API and records requests.
package llmtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/segmentio/encoding/json"
)

// FakeCall is one tool call the fake model makes.
type FakeCall struct {
	// ID is the tool call id; when empty a unique "call_N" is made up.
	ID   string
	Name string
	// Args is the JSON text of the arguments. It is streamed split across several chunks.
	Args string
	// Extra is a JSON object whose members are added to the first delta of this call, the
	// way Gemini sends {"extra_content":{"google":{"thought_signature":"…"}}}.
	Extra json.RawMessage
}

// Usage is the token count reported in the usage chunk, and what the server billed.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
}

// Total is prompt and completion tokens.
func (u Usage) Total() int64 { return u.PromptTokens + u.CompletionTokens }

// Step is the scripted answer to one request.
type Step struct {
	// Text is streamed as content deltas, split after each space.
	Text string
	// ToolCalls are streamed after Text; several calls have their chunks interleaved.
	ToolCalls []FakeCall
	// FinishReason defaults to "tool_calls" when there are tool calls, else "stop".
	FinishReason string
	// Usage is reported when the client asks for stream_options.include_usage (unless the
	// server was made WithoutUsage); when nil the request and the answer are counted the
	// way OpenAI documents it (CountTokens: a token per 4 bytes, 4 more per message).
	// It is also what the server bills (Billed): all of it for an answer sent whole; for
	// a stream that ended early the prompt and the share of the completion generated.
	Usage *Usage

	// Status, when not 0 or 200, fails the request with this HTTP status and an
	// OpenAI-style error body; with FailAfterTokens it is instead sent as an error event in
	// the middle of a 200 stream, after that many chunks.
	Status int
	// Message is the error message that goes with Status.
	Message string
	// RetryAfter is sent as the Retry-After header of a failed request (seconds or an
	// HTTP date).
	RetryAfter string
	// FailAfterTokens, when > 0, ends the stream after that many chunks (counting content
	// and tool-call chunks, not the role chunk): with an error event when Status is set,
	// else by cutting the connection without a finish_reason or [DONE].
	FailAfterTokens int
	// Stall stops sending after FailAfterTokens chunks (at once when 0, once the headers
	// and role chunk are out) and hangs until the client goes away or the server closes.
	Stall bool
	// ChunkDelay is waited before each chunk (simulated generation speed).
	ChunkDelay time.Duration
}

// Responder computes the answer to a request that no scripted step is left for.
type Responder func(req RecordedRequest) Step

// Option configures a Server.
type Option func(*Server)

// Script queues steps; each request consumes the next one.
func Script(steps ...Step) Option {
	return func(s *Server) { s.steps = append(s.steps, steps...) }
}

// WithResponder answers every request that the script does not cover.
func WithResponder(r Responder) Option {
	return func(s *Server) { s.responder = r }
}

// Repeat answers every request not covered by the script with step. A step with tool
// calls whose IDs are empty makes a model that never stops calling tools, with fresh ids.
func Repeat(step Step) Option {
	return WithResponder(func(RecordedRequest) Step { return step })
}

// WithAPIKey makes the server answer 401 (as OpenAI does) to requests whose bearer token
// is not key.
func WithAPIKey(key string) Option {
	return func(s *Server) { s.apiKey = key }
}

// WithoutUsage makes the server ignore stream_options.include_usage, as several
// OpenAI-compatible servers do: a stream never carries a usage chunk. It still bills.
func WithoutUsage() Option {
	return func(s *Server) { s.noUsage = true }
}

// NoRecording keeps no requests (Requests returns none), for long load-generator runs.
func NoRecording() Option {
	return func(s *Server) { s.noRecord = true }
}

// Server is a fake OpenAI-compatible Chat Completions endpoint. It serves
// POST /v1/chat/completions and POST /chat/completions, streamed (SSE) or not. It
// validates requests like the real API (a tool result must answer a preceding tool call,
// every tool call must be answered, tool names must be valid) and answers 400 otherwise.
// When neither the script nor a responder has an answer it replies 500 with a message
// saying so, so that a test missing a step fails loudly.
type Server struct {
	// URL is the base URL to give an OpenAI client, ending in /v1.
	URL string

	steps     []Step
	responder Responder
	apiKey    string
	noRecord  bool
	noUsage   bool

	mu       sync.Mutex
	requests []RecordedRequest
	received int
	nextCall int
	billed   Usage

	closeOnce sync.Once
	closed    chan struct{}
	handlers  *sync.WaitGroup
	httpSrv   *httptest.Server
	mem       *memNet
}

func newServer(opts []Option) *Server {
	s := &Server{closed: make(chan struct{}), handlers: new(sync.WaitGroup)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// New starts a Server listening on a loopback port. Close it when done.
func New(opts ...Option) *Server {
	s := newServer(opts)
	s.httpSrv = httptest.NewServer(s)
	s.URL = s.httpSrv.URL + "/v1"
	return s
}

// NewServer starts a Server that answers with steps, in order, and closes it when the test
// ends.
func NewServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := New(Script(steps...))
	t.Cleanup(s.Close)
	return s
}

// NewInMemory returns a Server that listens on no socket: requests reach it only through
// the client returned by Client, over in-memory pipes. Created inside a testing/synctest
// bubble, it runs on the bubble's fake clock, so stalls and timeouts take no real time.
// Close it before the bubble ends.
func NewInMemory(opts ...Option) *Server {
	s := newServer(opts)
	s.mem = newMemNet(s)
	s.URL = "http://llmtest.invalid/v1"
	return s
}

// Client returns an HTTP client that reaches the server.
func (s *Server) Client() *http.Client {
	if s.mem != nil {
		return s.mem.client
	}
	return s.httpSrv.Client()
}

// Close stops the server, ends stalled streams and waits for running handlers.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.httpSrv != nil {
			s.httpSrv.Close()
		}
		if s.mem != nil {
			s.mem.close()
		}
		s.handlers.Wait()
	})
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	copy(out, s.requests)
	return out
}

// Billed returns the tokens the server billed so far, the way a provider does: for every
// answer it began (HTTP 200), the prompt, and the completion tokens it generated, whether
// or not the client read them (a stream the client left, or that the server cut or
// stalled, bills what was generated until then). A request refused with an error status
// bills nothing. A handler still running may add to it: read it after the client's calls
// ended and Settle.
func (s *Server) Billed() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.billed
}

// Settle waits until no request is being answered, so that Billed counts every stream
// the clients left (the server notices a client gone at its next chunk, or at once when
// it stalls).
func (s *Server) Settle() {
	s.handlers.Wait()
}

func (s *Server) bill(u Usage) {
	s.mu.Lock()
	s.billed.PromptTokens += u.PromptTokens
	s.billed.CompletionTokens += u.CompletionTokens
	s.mu.Unlock()
}

// RecordedRequest is a decoded request body, for asserting what a client sent.
type RecordedRequest struct {
	Model        string
	Messages     []RecordedMessage
	Tools        []RecordedTool
	Stream       bool
	IncludeUsage bool
	// Header holds the request headers (Authorization included).
	Header http.Header
	// Body is the request body as received.
	Body json.RawMessage
}

// LastMessage returns the last message of the request, or the zero message.
func (r RecordedRequest) LastMessage() RecordedMessage {
	if len(r.Messages) == 0 {
		return RecordedMessage{}
	}
	return r.Messages[len(r.Messages)-1]
}

// RecordedMessage is one message of a request.
type RecordedMessage struct {
	Role string
	// Content is the text of the message (text parts joined when it was an array).
	Content    string
	ToolCalls  []RecordedToolCall
	ToolCallID string
	// Raw is the message object as received.
	Raw json.RawMessage
}

// RecordedToolCall is a tool call inside an assistant message of a request.
type RecordedToolCall struct {
	ID        string
	Type      string
	Name      string
	Arguments string
	// Extra holds the members of the tool call object other than id, type and function.
	Extra map[string]json.RawMessage
}

// RecordedTool is a function tool offered in a request.
type RecordedTool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handlers.Add(1)
	defer s.handlers.Done()

	if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions" {
		writeError(w, http.StatusNotFound, "llmtest: only /v1/chat/completions is served, not "+r.URL.Path, "not_found", "")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "llmtest: use POST", "invalid_request_error", "")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: reading the body: "+err.Error(), "invalid_request_error", "")
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error(), "invalid_request_error", "")
		return
	}
	req.Header = r.Header.Clone()

	s.mu.Lock()
	s.received++
	n := s.received
	if !s.noRecord {
		s.requests = append(s.requests, req)
	}
	s.mu.Unlock()

	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		return
	}
	if msg := validate(req); msg != "" {
		writeError(w, http.StatusBadRequest, msg, "invalid_request_error", "")
		return
	}
	step, ok := s.next(req)
	if !ok {
		writeError(w, http.StatusInternalServerError,
			fmt.Sprintf("llmtest: no scripted step left for request #%d and no responder", n), "server_error", "")
		return
	}
	if step.Status != 0 && step.Status != http.StatusOK && step.FailAfterTokens == 0 {
		if step.RetryAfter != "" {
			w.Header().Set("Retry-After", step.RetryAfter)
		}
		msg := step.Message
		if msg == "" {
			msg = http.StatusText(step.Status)
		}
		writeError(w, step.Status, msg, errorType(step.Status), "")
		return
	}
	a, err := s.answer(req, step)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "server_error", "")
		return
	}
	if !req.Stream {
		s.bill(a.usage)
		s.writeCompletion(w, req, a)
		return
	}
	s.writeStream(w, r, req, step, a)
}

// next returns the step for a request: the next scripted one, else the responder's.
func (s *Server) next(req RecordedRequest) (Step, bool) {
	s.mu.Lock()
	if len(s.steps) > 0 {
		step := s.steps[0]
		s.steps = s.steps[1:]
		s.mu.Unlock()
		return step, true
	}
	s.mu.Unlock()
	if s.responder == nil {
		return Step{}, false
	}
	return s.responder(req), true
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	var c any
	if code != "" {
		c = code
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": c,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

type wireRequest struct {
	Model         string            `json:"model"`
	Messages      []json.RawMessage `json:"messages"`
	Tools         []json.RawMessage `json:"tools"`
	Stream        bool              `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type wireMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []json.RawMessage `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func decodeRequest(body []byte) (RecordedRequest, error) {
	// The raw messages and tools point into body, which the request keeps anyway.
	var w wireRequest
	if err := unmarshal(body, &w, json.DontCopyRawMessage); err != nil {
		return RecordedRequest{}, err
	}
	req := RecordedRequest{
		Model:        w.Model,
		Stream:       w.Stream,
		IncludeUsage: w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
		Body:         json.RawMessage(body),
	}
	for _, raw := range w.Messages {
		var m wireMessage
		if err := unmarshal(raw, &m, json.DontCopyRawMessage); err != nil {
			return RecordedRequest{}, fmt.Errorf("messages: %w", err)
		}
		text, err := contentText(m.Content)
		if err != nil {
			return RecordedRequest{}, fmt.Errorf("message content: %w", err)
		}
		rm := RecordedMessage{Role: m.Role, Content: text, ToolCallID: m.ToolCallID, Raw: raw}
		for _, rawCall := range m.ToolCalls {
			var c wireToolCall
			var all map[string]json.RawMessage
			// Most calls have no members but id, type and function: only when the strict
			// decoding finds another one is the call decoded again to keep them.
			if unmarshal(rawCall, &c, json.DisallowUnknownFields) != nil {
				c = wireToolCall{}
				if err := json.Unmarshal(rawCall, &c); err != nil {
					return RecordedRequest{}, fmt.Errorf("tool_calls: %w", err)
				}
				if err := json.Unmarshal(rawCall, &all); err != nil {
					return RecordedRequest{}, fmt.Errorf("tool_calls: %w", err)
				}
				delete(all, "id")
				delete(all, "type")
				delete(all, "function")
				if len(all) == 0 {
					all = nil
				}
			}
			rm.ToolCalls = append(rm.ToolCalls, RecordedToolCall{
				ID: c.ID, Type: c.Type, Name: c.Function.Name, Arguments: c.Function.Arguments, Extra: all,
			})
		}
		req.Messages = append(req.Messages, rm)
	}
	for _, raw := range w.Tools {
		var t wireTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return RecordedRequest{}, fmt.Errorf("tools: %w", err)
		}
		req.Tools = append(req.Tools, RecordedTool{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters,
		})
	}
	return req, nil
}

// unmarshal is json.Unmarshal with parse flags.
func unmarshal(b []byte, v any, flags json.ParseFlags) error {
	rest, err := json.Parse(b, v, flags)
	if err == nil && len(bytes.TrimSpace(rest)) != 0 {
		return fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	return err
}

// contentText returns the text of a message content: a string, null, or an array of parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate returns what the real API would say about a malformed request, or "".
func validate(req RecordedRequest) string {
	if req.Model == "" {
		return "you must provide a model parameter"
	}
	if len(req.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	for _, t := range req.Tools {
		if !toolNameRE.MatchString(t.Name) {
			return fmt.Sprintf("Invalid 'tools[].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' with at most 64 characters, got %q.", t.Name)
		}
		if len(t.Parameters) > 0 && !bytes.HasPrefix(bytes.TrimSpace(t.Parameters), []byte("{")) {
			return fmt.Sprintf("Invalid schema for function %q: parameters must be a JSON object.", t.Name)
		}
	}
	pending := map[string]bool{} // tool call ids not answered yet
	var order []string
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant":
			if len(pending) > 0 {
				var missing []string
				for _, id := range order {
					if pending[id] {
						missing = append(missing, id)
					}
				}
				return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(missing, ", ")
			}
			order = order[:0]
			for _, c := range m.ToolCalls {
				if c.ID == "" {
					return fmt.Sprintf("Missing required parameter: 'messages[%d].tool_calls[].id'.", i)
				}
				pending[c.ID] = true
				order = append(order, c.ID)
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[%d], tool_call_id %q)", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'. (messages[%d].role)", m.Role, i)
		}
	}
	if len(pending) > 0 {
		var missing []string
		for _, id := range order {
			if pending[id] {
				missing = append(missing, id)
			}
		}
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(missing, ", ")
	}
	return ""
}
