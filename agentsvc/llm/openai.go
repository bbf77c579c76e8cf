package llm

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/internal/clock"
)

// Defaults of Options.
const (
	DefaultRequestTimeout = 120 * time.Second
	DefaultIdleTimeout    = 30 * time.Second
	DefaultMaxRetries     = 3
	// DefaultOllamaURL is where Select looks for a local Ollama.
	DefaultOllamaURL = "http://127.0.0.1:11434"
)

// Backoff between retries when the server gives no Retry-After: base << attempt, capped,
// with jitter. A Retry-After longer than maxRetryAfter is not waited for.
const (
	backoffBase   = 500 * time.Millisecond
	backoffCap    = 8 * time.Second
	maxRetryAfter = 60 * time.Second
	// A connection that could not be made (refused, reset before any answer, the server's
	// accept queue full) is retried sooner: connectBase << attempt, capped by the usual
	// backoff, so that a rare failed connect costs a few milliseconds, not half a second.
	connectBase = 10 * time.Millisecond
)

// maxDrain bounds what is read after the end of a stream to keep its connection.
const maxDrain = 64 << 10

// maxProviderMessage bounds how much of a provider's error message is kept.
const maxProviderMessage = 300

// Options configures an OpenAI model.
type Options struct {
	// BaseURL of the OpenAI-compatible API; default https://api.openai.com/v1.
	BaseURL string
	// APIKey is sent as a bearer token. It is never logged.
	APIKey string
	// Model name; default gpt-4o-mini.
	Model string
	// Provider is "openai", "openrouter", "gemini", "ollama" or "custom", for logs and Name.
	Provider string
	// HTTPClient is optional; by default a client over NewTransport sized by MaxConns.
	HTTPClient *http.Client
	// MaxConns bounds the connections to the provider, the idle ones kept for reuse, and
	// the model requests in flight (the others wait their turn in arrival order). Default
	// DefaultMaxConns, or DefaultLocalMaxConns for a server on this machine (a local
	// inference server serves a few requests at a time, and a burst of connections
	// overflows its listen queue); Select reads BYOMCP_MODEL_CONNS. Unused when HTTPClient
	// is given.
	MaxConns int
	// RequestTimeout bounds a whole Stream call: every attempt, the waits between them
	// and the streamed body. Default 120s.
	RequestTimeout time.Duration
	// IdleTimeout is the longest gap allowed between two stream chunks, counted from the
	// response headers. Default 30s.
	IdleTimeout time.Duration
	// MaxRetries is how many times a failed call is tried again; 0 means 3, a negative
	// value means never. Retries happen only on 429, 5xx, connection errors and stalls,
	// and only while no text has been streamed. Retry-After (seconds or an HTTP date) is
	// honoured, else exponential backoff with jitter (500ms base, 8s cap).
	MaxRetries int
	// Logger is optional.
	Logger *zap.Logger
	// Sleep waits between retries; default a real timer that stops when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// OllamaURL is where Select probes for a local Ollama; default DefaultOllamaURL.
	OllamaURL string
}

// OpenAI is a Model served by any OpenAI-compatible Chat Completions API, streamed.
// It is safe for concurrent use.
type OpenAI struct {
	opts       Options
	maxRetries int
	client     openai.Client
	log        *zap.Logger
	noUsage    atomic.Bool // the provider was found to send no usage (and it was logged)
}

var _ Model = (*OpenAI)(nil)

// NewOpenAI returns a Model for o, with defaults filled in.
func NewOpenAI(o Options) *OpenAI {
	if o.BaseURL == "" {
		o.BaseURL = openAIBaseURL
		if o.Provider == "" {
			o.Provider = ProviderOpenAI
		}
	}
	if o.Provider == "" {
		o.Provider = ProviderCustom
	}
	if o.Model == "" {
		o.Model = openAIDefaultModel
	}
	if o.HTTPClient == nil {
		n := o.MaxConns
		if n <= 0 && isLoopback(o.BaseURL) {
			n = DefaultLocalMaxConns
		}
		o.HTTPClient = &http.Client{Transport: NewTransport(TransportOptions{MaxConns: n})}
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Sleep == nil {
		o.Sleep = clock.Sleep
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	retries := o.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	// The client is built from explicit options only: openai.NewClient would also read
	// OPENAI_* variables (organization, project, headers) and send them to any provider.
	client := openai.Client{Options: []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithAPIKey(o.APIKey),
		option.WithHTTPClient(o.HTTPClient),
		option.WithMaxRetries(0),
	}}
	return &OpenAI{
		opts:       o,
		maxRetries: retries,
		client:     client,
		log:        o.Logger.With(zap.String("provider", o.Provider), zap.String("model", o.Model)),
	}
}

// Name returns the provider and the model, e.g. "openai gpt-4o-mini".
func (m *OpenAI) Name() string { return m.opts.Provider + " " + m.opts.Model }

var (
	errRequestTimeout = errors.New("llm: request timeout")
	errStalled        = errors.New("llm: stream stalled")
)

// Stream implements Model: it streams one completion, retrying failures that happen
// before any text reached onDelta (or any tool-call piece reached req.OnToolDelta).
//
// Every attempt that the provider may have billed is counted in the Response's Usage,
// returned with the error too (see Model): the provider's usage chunk when it came, else
// an estimate (EstimateTokens) of the prompt (the request body) and of the output received,
// or of the prompt alone when no answer came. An attempt refused with an HTTP error status,
// or whose connection could not be made, cost nothing.
func (m *OpenAI) Stream(ctx context.Context, req Request, onDelta func(delta string)) (*Response, error) {
	body, err := requestBody(m.opts.Model, req)
	if err != nil {
		return nil, &Error{Message: err.Error(), Err: err}
	}
	prompt := EstimateTokens(len(body))
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, m.opts.RequestTimeout, errRequestTimeout)
	defer cancel()

	var (
		used      chat.Usage // by the attempts so far
		estimated bool
	)
	spent := func() *Response { // what a failed call returns with its error
		if used == (chat.Usage{}) {
			return nil
		}
		return &Response{Usage: used, UsageEstimated: estimated}
	}
	for attempt := 0; ; attempt++ {
		resp, s, f := m.attempt(ctx, body, prompt, onDelta, req.OnToolDelta)
		used, estimated = used.Add(s.usage), estimated || s.estimated
		if f == nil {
			resp.Usage, resp.UsageEstimated = used, estimated
			m.log.Debug("model call done",
				zap.Int("attempts", attempt+1), zap.String("finish", resp.FinishReason),
				zap.Int("tool_calls", len(resp.ToolCalls)),
				zap.Int64("prompt_tokens", resp.Usage.PromptTokens),
				zap.Int64("completion_tokens", resp.Usage.CompletionTokens),
				zap.Bool("estimated", estimated))
			return resp, nil
		}
		if ce := m.contextError(parent, ctx); ce != nil {
			if _, queued := errors.AsType[*QueueError](f.err.Err); queued && parent.Err() == nil {
				return spent(), f.err // the time went in the queue: it says so
			}
			return spent(), ce
		}
		if f.streamed || !f.err.Retryable || attempt >= m.maxRetries {
			return spent(), f.err
		}
		wait := backoff(attempt)
		if f.connect {
			wait = connectBackoff(attempt)
		}
		if f.hasRetryAfter {
			if f.retryAfter > maxRetryAfter {
				f.err.Message += fmt.Sprintf("; it asks to wait %s", f.retryAfter)
				return spent(), f.err
			}
			wait = f.retryAfter
		}
		m.log.Warn("model call failed, retrying",
			zap.Int("attempt", attempt+1), zap.Int("status", f.err.Status),
			zap.String("error", f.err.Message), zap.Duration("wait", wait))
		if err := m.opts.Sleep(ctx, wait); err != nil {
			if ce := m.contextError(parent, ctx); ce != nil {
				return spent(), ce
			}
			return spent(), &Error{Message: "the wait before retrying failed", Err: err}
		}
	}
}

// backoff returns the wait before retry number attempt+1: base << attempt, capped at
// backoffCap, then a random value in its upper half.
func backoff(attempt int) time.Duration {
	d := backoffCap
	if attempt < 5 {
		d = min(backoffBase<<attempt, backoffCap)
	}
	return d/2 + rand.N(d/2+1)
}

// connectBackoff is the wait before retry number attempt+1 of a connection that could not
// be made: connectBase << attempt, at most what backoff allows, the upper half at random.
func connectBackoff(attempt int) time.Duration {
	d := backoffCap
	if attempt < 5 {
		d = min(connectBase<<attempt, backoffCap)
	}
	return d/2 + rand.N(d/2+1)
}

// contextError describes why the call must stop when ctx (the call's context with the
// request timeout) or parent (the caller's) has ended; nil while both are live.
func (m *OpenAI) contextError(parent, ctx context.Context) *Error {
	switch {
	case parent.Err() != nil:
		cause := context.Cause(parent)
		if errors.Is(parent.Err(), context.DeadlineExceeded) {
			return &Error{Message: "the model call ran out of time", Err: cause}
		}
		return &Error{Message: "the model call was cancelled", Err: cause}
	case ctx.Err() != nil:
		return &Error{
			Message:   fmt.Sprintf("the model call took longer than %s", m.opts.RequestTimeout),
			Retryable: true,
			Err:       context.DeadlineExceeded,
		}
	}
	return nil
}

// failure is a failed attempt.
type failure struct {
	err           *Error
	streamed      bool // text already reached onDelta (or a call OnToolDelta): the call must not be retried
	retryAfter    time.Duration
	hasRetryAfter bool
	connect       bool // no connection could be made, or it broke before any answer
}

// toolAcc assembles one tool call from its deltas.
type toolAcc struct {
	index int64
	id    string
	name  string
	args  strings.Builder
	extra map[string]json.RawMessage
	told  bool // OnToolDelta has been given the id, the name and the arguments so far
}

// spend is what one attempt consumed.
type spend struct {
	usage     chat.Usage
	estimated bool // the provider reported no usage for it
}

// attempt makes one HTTP request and reads its stream to the end. It returns what the
// attempt consumed whatever the outcome (see Stream); prompt is the request's estimate.
func (m *OpenAI) attempt(ctx context.Context, body []byte, prompt int64, onDelta func(string), onToolDelta func(int, string, string, string)) (*Response, spend, *failure) {
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, queueNoteKey{}, new(queueNote)))
	defer cancel(nil)
	// The request counts as sent (its prompt as billed, unless an answer says otherwise)
	// once it was written out whole: not while it waits in the queue (Transport) or for a
	// connection.
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			wrote.Store(true)
		}
	}})

	// The SDK makes the request (auth, headers, error responses); its body is encoded by
	// requestBody and the stream is read into chunk, rather than through the SDK's types.
	// The body goes in as bytes: ChatCompletionService.New would also encode its (empty)
	// params through reflection before the body replaced them, a tenth of a model call's CPU.
	var httpRes, streamRes *http.Response
	err := m.client.Post(ctx, "chat/completions", body, nil,
		option.WithResponseInto(&httpRes), option.WithResponseBodyInto(&streamRes))
	if err != nil {
		f := m.requestFailure(ctx, err, httpRes)
		var s spend
		// No answer came (cancelled, timed out, the connection broke after the request
		// went out): the provider may be reading the prompt. An HTTP error status, or a
		// connection refused or dropped before the request was read, bills nothing.
		if wrote.Load() && f.err.Status == 0 && !f.connect && (httpRes == nil || httpRes.StatusCode < 300) {
			s = spend{usage: estimated(prompt, 0), estimated: true}
		}
		return nil, s, f
	}
	if streamRes == nil || streamRes.Body == nil {
		return nil, spend{usage: estimated(prompt, 0), estimated: true}, &failure{err: &Error{Message: "the model API sent no response body", Retryable: true}}
	}
	events := newSSEReader(streamRes.Body)
	drain := false
	defer func() {
		if drain {
			// What follows [DONE] (the end of the chunked body) is read, so that the
			// connection goes back to the pool: closing a body before its end closes the
			// connection, and every model call would open a new one (and a TLS handshake).
			_, _ = io.CopyN(io.Discard, streamRes.Body, maxDrain)
		}
		_ = streamRes.Body.Close()
		events.release()
	}()

	idle := time.AfterFunc(m.opts.IdleTimeout, func() { cancel(errStalled) })
	defer idle.Stop()

	var (
		resp      Response
		text      strings.Builder
		calls     []*toolAcc
		byIndex   = map[int64]*toolAcc{}
		streamed  bool
		gotUsage  bool
		outBytes  int // text and tool-call bytes received
		outChunks int // chunks that carried some
	)
	// consumed is what the attempt cost: the provider's count when it sent one, else the
	// estimate of the prompt and of the output received.
	consumed := func() spend {
		if gotUsage {
			return spend{usage: resp.Usage}
		}
		return spend{usage: estimated(prompt, estimateOutput(outBytes, outChunks)), estimated: true}
	}
	var streamErr error
	var chunk chunk // decoded into again for each event (decodeChunk resets it)
	for events.next() {
		idle.Reset(m.opts.IdleTimeout)
		ev := events.event()
		if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
			drain = true
			break
		}
		if streamErr = decodeChunk(ev, &chunk); streamErr != nil {
			break
		}
		if u := chunk.Usage; u != nil {
			resp.Usage = chat.Usage{
				PromptTokens:     u.PromptTokens,
				CompletionTokens: u.CompletionTokens,
				TotalTokens:      u.TotalTokens,
			}
			gotUsage = true
		}
		for _, choice := range chunk.Choices {
			n := len(choice.Delta.Content)
			for _, tc := range choice.Delta.ToolCalls {
				n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
			}
			if n > 0 { // every choice generated is billed, read or not
				outBytes += n
				outChunks++
			}
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				text.WriteString(d)
				streamed = true
				if onDelta != nil {
					onDelta(d)
				}
			}
			for _, tc := range choice.Delta.ToolCalls {
				acc := byIndex[tc.Index]
				// A provider that numbers every call 0 still gives each its own id.
				if acc == nil || (tc.ID != "" && acc.id != "" && tc.ID != acc.id) {
					acc = &toolAcc{index: tc.Index}
					byIndex[tc.Index] = acc
					calls = append(calls, acc)
				}
				if tc.ID != "" {
					acc.id = tc.ID
				}
				if acc.name == "" {
					acc.name = tc.Function.Name
				}
				acc.args.WriteString(tc.Function.Arguments)
				for k, raw := range tc.Extra {
					if acc.extra == nil {
						acc.extra = map[string]json.RawMessage{}
					}
					acc.extra[k] = raw
				}
				if onToolDelta != nil && acc.id != "" && acc.name != "" {
					switch {
					case !acc.told:
						acc.told, streamed = true, true
						onToolDelta(int(acc.index), acc.id, acc.name, acc.args.String())
					case tc.Function.Arguments != "":
						onToolDelta(int(acc.index), acc.id, acc.name, tc.Function.Arguments)
					}
				}
			}
			if choice.FinishReason != "" {
				resp.FinishReason = choice.FinishReason
			}
		}
	}
	if streamErr == nil {
		streamErr = events.err
	}
	if err := streamErr; err != nil {
		f := m.streamFailure(ctx, err)
		f.streamed = streamed
		return nil, consumed(), f
	}
	if resp.FinishReason == "" {
		return nil, consumed(), &failure{streamed: streamed, err: &Error{
			Message:   "the model stream ended before the answer was complete",
			Retryable: true,
		}}
	}

	resp.Text = text.String()
	slices.SortStableFunc(calls, func(a, b *toolAcc) int { return int(a.index - b.index) })
	for _, acc := range calls {
		tc := chat.ToolCall{ID: acc.id, Name: acc.name, Arguments: acc.args.String(), Extra: acc.extra}
		if tc.ID == "" {
			// Unique in the conversation: "call_0" of every such response would repeat in
			// the history the model reads next (and in an AG-UI thread).
			tc.ID = "call_" + strings.ToLower(crand.Text()[:16])
		}
		if strings.TrimSpace(tc.Arguments) == "" {
			tc.Arguments = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, tc)
	}
	if len(resp.ToolCalls) > 0 && resp.FinishReason == "stop" {
		// Some providers (Gemini) report "stop" for an answer that calls tools.
		resp.FinishReason = "tool_calls"
	}
	if !gotUsage && m.noUsage.CompareAndSwap(false, true) {
		m.log.Warn("the model API sends no token usage (it ignores stream_options.include_usage): "+
			"budgets and metrics count an estimate of one token per 2 bytes of the request and of the answer",
			zap.String("host", m.host()))
	}
	return &resp, consumed(), nil
}
