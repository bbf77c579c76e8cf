// Package llm talks to language models: an OpenAI-compatible streaming client with retries
// and provider presets. The agent loop sees only the Model interface.
package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// Model produces one assistant response for a conversation.
type Model interface {
	// Stream sends req and returns the whole response. Text deltas are passed to
	// onDelta as they arrive (onDelta may be nil). It honours ctx.
	//
	// A call that fails, times out or is cancelled after the provider may have billed it
	// (a request was sent) returns its error together with a Response that holds only
	// Usage and UsageEstimated: what the call consumed, every attempt included, so that
	// budgets and metrics count every billed token however the call ended. A call that
	// cost nothing returns a nil Response with its error.
	Stream(ctx context.Context, req Request, onDelta func(delta string)) (*Response, error)
	// Name says which model and provider this is, for logs and the startup line.
	Name() string
}

// Request is one model call.
type Request struct {
	Messages []chat.Message
	Tools    []chat.ToolDef
	// OnToolDelta, if set, is told of the response's tool calls as they stream: once a
	// call's id and name are known it is called with the arguments received so far (maybe
	// ""), then with each further piece of them, in order; index is the call's position in
	// the response as the provider numbers it. The pieces of one call join to its
	// arguments as streamed (Response.ToolCalls may still say "{}" for none). A model that
	// does not stream (the offline planner, fakes) may never call it. A response that
	// called it is not retried. Called from the goroutine of Stream, never concurrently.
	OnToolDelta func(index int, id, name, argsDelta string)
}

// Response is the assembled answer of one model call.
type Response struct {
	Text         string
	ToolCalls    []chat.ToolCall
	FinishReason string // "stop", "tool_calls", "length", ...
	// Usage is what the call consumed: the provider's counts, or byomcp's estimate
	// (EstimateTokens) for the attempts the provider reported none of.
	Usage chat.Usage
	// UsageEstimated is set when some of Usage is an estimate: the provider sent no usage
	// (it ignores stream_options.include_usage), or the stream ended before its last chunk
	// (cancelled, cut, stalled, timed out).
	UsageEstimated bool
}

// Error is a failed model call. Retryable tells the user whether trying again may help.
type Error struct {
	Status    int // HTTP status, 0 when none
	Message   string
	Retryable bool
	Err       error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("llm: %s (HTTP %d)", e.Message, e.Status)
	}
	return "llm: " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
