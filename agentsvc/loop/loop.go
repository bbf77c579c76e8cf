// Package loop is the agent's tool-calling loop: one turn is model call (streamed) → the
// model's tool calls in parallel → results appended → model call … until an answer or a guard.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	fastjson "github.com/segmentio/encoding/json"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/internal/stack"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// MaxCallsPerResponse is how many tool calls of one model response a turn takes: past the
// turn's limit each is answered as not run, and each costs the page two events.
const MaxCallsPerResponse = 64

// Limits bound one turn.
type Limits struct {
	MaxModelCalls int // model calls per turn; default 10
	MaxToolCalls  int // tool calls per turn; default 25
	MaxOutput     int // bytes of one tool result given to the model; default tools.DefaultMaxOutput
	MaxTools      int // tools offered to the model; default 128
}

// WithDefaults fills the limits left zero.
func (l Limits) WithDefaults() Limits {
	if l.MaxModelCalls <= 0 {
		l.MaxModelCalls = 10
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = 25
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = tools.DefaultMaxOutput
	}
	if l.MaxTools <= 0 {
		l.MaxTools = 128
	}
	return l
}

// Toolbox is what a turn can call: the tools of the page, of server-side MCP servers, or both.
type Toolbox interface {
	// Defs returns the tools offered to the model for its next call.
	Defs(ctx context.Context) []chat.ToolDef
	// Call runs one call of the model. It validates the arguments and applies timeouts, and
	// always returns an outcome: failures are tool errors for the model, not Go errors. An
	// outcome of kind tools.HandedOff is answered outside the turn (an AG-UI client runs
	// it): no tool_result event and no tool message for it, and the turn ends after this
	// round of calls with StopDeferred.
	Call(ctx context.Context, call chat.ToolCall) tools.Outcome
}

// StopDeferred ends a turn whose tool calls are answered outside it (tools.HandedOff).
const StopDeferred = "deferred"

// Turn is one user message and everything the agent does to answer it.
type Turn struct {
	ID      string
	Model   llm.Model
	System  string         // system prompt ("" = none)
	History []chat.Message // the conversation before this turn
	Text    string         // the user's message; "" goes on from History (after tool results)
	Tools   Toolbox        // nil = no tools
	Limits  Limits
	// Emit receives the turn's events in order (TurnID and Type set; the caller numbers them).
	// Called from several goroutines when tools run in parallel, never at the same time.
	Emit func(wire.Event)
	// Record, if set, is given instead of Emit the events that complete part of the
	// conversation, with the messages they complete: the model's response that asks for tool
	// calls with its first tool_call event, and each call's tool message with its
	// tool_result. A caller stores each with its event, so a turn cut short (a crash, a
	// replica's death) still holds every call that was made and every result that came back.
	// Such messages are not in Result.Unrecorded. Called like Emit, never at the same time.
	Record func(wire.Event, []chat.Message)
	Logger *zap.Logger
	// OnPanic, if set, is told of every panic RunTurn recovers (a model stream, a tool call,
	// the loop itself), after it was logged with its stack; the turn then ends with StopError.
	OnPanic func(where string, v any)
}

// Result is how a turn ended.
type Result struct {
	Text       string
	StopReason string
	// Usage is what the turn's model calls consumed, those that failed or were cancelled
	// included; UsageEstimated is set when some of it is an estimate (llm.Response).
	Usage          chat.Usage
	UsageEstimated bool
	// Messages are the messages this turn added, starting with the user's (when Text is set).
	Messages []chat.Message
	// Unrecorded are the messages of Messages after the user's that were not given to
	// Turn.Record (all of them when Record is nil): what the caller still has to store.
	Unrecorded []chat.Message
	// Err is the error that ended the turn with StopError.
	Err error
}

// Run runs the tool-calling loop: model call (streamed) → the response's tool calls in
// parallel → results appended → model call … until a reply without tool calls, the limits,
// an error or ctx's cancellation. Every tool call id the model produced gets an answer.
//
// A panic in the model's stream, a tool call or the loop is contained: logged with its
// stack, reported to t.OnPanic, every tool call of the round answered, and the turn ends with
// StopError and an error event.
func Run(ctx context.Context, t Turn) (result Result) {
	lim := t.Limits.WithDefaults()
	log := t.Logger
	if log == nil {
		log = zap.NewNop()
	}
	panicked := func(where string, v any) error {
		log.Error("recovered a panic", zap.String("where", where), zap.Any("panic", v), zap.Stack("stack"))
		if t.OnPanic != nil {
			t.OnPanic(where, v)
		}
		return fmt.Errorf("%w: %s: %v", errTurnPanicked, where, v)
	}
	var emitMu sync.Mutex
	emit := func(ev wire.Event) {
		if t.Emit == nil {
			return
		}
		ev.Header().TurnID = t.ID
		emitMu.Lock()
		defer emitMu.Unlock()
		t.Emit(ev)
	}
	// record emits ev with the messages it completes (Turn.Record); it reports whether they
	// were recorded, that is, whether they must stay out of Result.Unrecorded.
	record := func(ev wire.Event, msgs ...chat.Message) bool {
		if t.Record == nil {
			emit(ev)
			return false
		}
		ev.Header().TurnID = t.ID
		emitMu.Lock()
		defer emitMu.Unlock()
		t.Record(ev, msgs)
		return true
	}
	var res Result
	// add appends the turn's messages after the user's; recorded ones are already stored.
	add := func(recorded bool, msgs ...chat.Message) {
		res.Messages = append(res.Messages, msgs...)
		if !recorded {
			res.Unrecorded = append(res.Unrecorded, msgs...)
		}
	}

	conv := make([]chat.Message, 0, len(t.History)+8)
	if t.System != "" {
		conv = append(conv, chat.Message{Role: chat.RoleSystem, Content: t.System})
	}
	conv = append(conv, t.History...)
	if t.Text != "" {
		user := chat.Message{Role: chat.RoleUser, Content: t.Text, TurnID: t.ID}
		res.Messages = append(res.Messages, user)
		conv = append(conv, user)
	}

	var texts []string
	toolCalls := 0
	finish := func(reason string, err error) Result {
		res.StopReason = reason
		res.Err = err
		res.Text = strings.Join(texts, "\n\n")
		return res
	}
	failed := func(err error) Result { // after a recovered panic
		func() {
			defer func() { _ = recover() }() // emitting may be what failed
			emit(&wire.ErrorEvent{EventHeader: wire.EventHeader{Type: wire.EventError}, Message: "the agent failed while answering (an internal error)", Retryable: true})
		}()
		return finish(wire.StopError, err)
	}
	defer func() {
		if v := recover(); v != nil {
			result = failed(panicked("turn", v))
		}
	}()
	for modelCalls := 0; ; modelCalls++ {
		if modelCalls == lim.MaxModelCalls {
			return finish(wire.StopMaxIterations, nil)
		}
		if ctx.Err() != nil {
			return finish(wire.StopCancelled, nil)
		}
		var defs []chat.ToolDef
		if t.Tools != nil {
			defs = t.Tools.Defs(ctx)
			if len(defs) > lim.MaxTools {
				log.Warn("too many tools; offering the first ones", zap.Int("tools", len(defs)), zap.Int("max", lim.MaxTools))
				defs = defs[:lim.MaxTools]
			}
		}
		var sb strings.Builder
		started := false
		onDelta := func(d string) {
			if d == "" {
				return
			}
			if !started && len(texts) > 0 {
				emit(&wire.TextDeltaEvent{EventHeader: wire.EventHeader{Type: wire.EventTextDelta}, Delta: "\n\n"})
			}
			started = true
			sb.WriteString(d)
			emit(&wire.TextDeltaEvent{EventHeader: wire.EventHeader{Type: wire.EventTextDelta}, Delta: d})
		}
		resp, err := streamContained(ctx, t.Model, llm.Request{Messages: conv, Tools: defs}, onDelta, panicked)
		if resp != nil {
			// What the call consumed, however it ended: a failed or cancelled call returns
			// its usage with its error (llm.Model).
			res.Usage = res.Usage.Add(resp.Usage)
			res.UsageEstimated = res.UsageEstimated || resp.UsageEstimated
		}
		if errors.Is(err, errTurnPanicked) {
			if sb.Len() > 0 {
				texts = append(texts, sb.String())
				add(false, chat.Message{Role: chat.RoleAssistant, Content: sb.String(), TurnID: t.ID})
			}
			return failed(err)
		}
		if err != nil {
			if sb.Len() > 0 {
				texts = append(texts, sb.String())
				add(false, chat.Message{Role: chat.RoleAssistant, Content: sb.String(), TurnID: t.ID})
			}
			if ctx.Err() != nil {
				return finish(wire.StopCancelled, nil)
			}
			msg, retryable := describeModelError(err)
			log.Warn("model call failed", zap.Error(err))
			emit(&wire.ErrorEvent{EventHeader: wire.EventHeader{Type: wire.EventError}, Message: msg, Retryable: retryable})
			return finish(wire.StopError, err)
		}
		if n := len(resp.ToolCalls); n > MaxCallsPerResponse {
			// Each call is two events on the page's socket (tool_call, tool_result): hundreds
			// at once filled its send queue and dropped a page that reads. The turn would run
			// MaxToolCalls of them anyway; the rest are left out as if the model had not made
			// them.
			log.Warn("the model asked for more tool calls in one response than are taken; the rest are left out",
				zap.Int("calls", n), zap.Int("taken", MaxCallsPerResponse))
			resp.ToolCalls = resp.ToolCalls[:MaxCallsPerResponse:MaxCallsPerResponse]
		}
		text := resp.Text
		if text == "" {
			text = sb.String()
		}
		if text != "" {
			texts = append(texts, text)
		}
		asst := chat.Message{Role: chat.RoleAssistant, Content: text, ToolCalls: resp.ToolCalls, TurnID: t.ID}
		conv = append(conv, asst)
		if len(resp.ToolCalls) == 0 {
			add(false, asst)
			return finish(wire.StopEnd, nil)
		}

		answers := make([]chat.Message, len(resp.ToolCalls))
		deferred := make([]bool, len(resp.ToolCalls))
		var wg sync.WaitGroup
		var toolPanic atomic.Pointer[error]
		overBudget := false
		names := make([]string, len(resp.ToolCalls))
		for i, call := range resp.ToolCalls { // tool_call events in the model's order
			names[i] = displayName(t.Tools, call.Name)
			if i == 0 { // the response is stored before any of its calls can run
				add(record(callEvent(call, names[i]), asst), asst)
			} else {
				emit(callEvent(call, names[i]))
			}
		}
		for i, call := range resp.ToolCalls {
			if toolCalls >= lim.MaxToolCalls {
				overBudget = true
				out := tools.NotRun(call.Name, lim.MaxToolCalls)
				answers[i] = toolMessage(t.ID, call, out)
				record(resultEvent(call, names[i], out), answers[i])
				continue
			}
			toolCalls++
			wg.Add(1)
			go func() {
				stack.Grow()
				defer wg.Done()
				defer func() {
					if v := recover(); v != nil {
						err := panicked("tool_call", v)
						toolPanic.Store(&err)
						out := tools.InternalError(call.Name)
						answers[i], deferred[i] = toolMessage(t.ID, call, out), false
						func() {
							defer func() { _ = recover() }()
							record(resultEvent(call, names[i], out), answers[i])
						}()
					}
				}()
				answers[i], deferred[i] = runToolCall(ctx, t, call, names[i], record)
			}()
		}
		wg.Wait()
		answered := answers[:0]
		for i, a := range answers {
			if !deferred[i] {
				answered = append(answered, a)
			}
		}
		add(t.Record != nil, answered...) // each went with its tool_result
		conv = append(conv, answered...)
		if err := toolPanic.Load(); err != nil {
			return failed(*err)
		}
		if ctx.Err() != nil {
			return finish(wire.StopCancelled, nil)
		}
		if len(answered) < len(answers) {
			return finish(StopDeferred, nil)
		}
		if overBudget {
			return finish(wire.StopMaxIterations, nil)
		}
	}
}

// errTurnPanicked wraps the error of a turn that ended because a panic was recovered.
var errTurnPanicked = errors.New("agent: recovered a panic")

// streamContained calls m.Stream, turning a panic (in the model client or in onDelta) into an
// error wrapping errTurnPanicked.
func streamContained(ctx context.Context, m llm.Model, req llm.Request, onDelta func(string), panicked func(string, any) error) (resp *llm.Response, err error) {
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, panicked("model", v)
		}
	}()
	return m.Stream(ctx, req, onDelta)
}

// runToolCall runs the call, emits tool_result (its tool_call went before: Run sends them
// in the model's order), and returns the tool message for the model, or deferred when the
// call is answered outside the turn.
func runToolCall(ctx context.Context, t Turn, call chat.ToolCall, name string, record func(wire.Event, ...chat.Message) bool) (msg chat.Message, deferred bool) {
	var out tools.Outcome
	if t.Tools != nil {
		out = t.Tools.Call(ctx, call)
	} else {
		out = tools.Unknown(call.Name)
	}
	if out.Name == "" {
		out.Name = call.Name
	}
	if out.Kind == tools.HandedOff && ctx.Err() == nil {
		return chat.Message{}, true
	}
	if ctx.Err() != nil && (out.Kind == tools.HandedOff || out.Kind == tools.OK && out.Text == "") {
		out = tools.CancelledCall(out.Name)
	}
	msg = toolMessage(t.ID, call, out)
	record(resultEvent(call, name, out), msg)
	return msg, false
}

// callEvent is the tool_call event of a call: its arguments as the JSON the model wrote
// ({} for none; text that is not JSON as a JSON string).
func callEvent(call chat.ToolCall, name string) *wire.ToolCallEvent {
	args := json.RawMessage(call.Arguments)
	if strings.TrimSpace(call.Arguments) == "" {
		args = json.RawMessage(`{}`)
	}
	if !fastjson.Valid(args) {
		b, _ := json.Marshal(call.Arguments)
		args = b
	}
	return &wire.ToolCallEvent{EventHeader: wire.EventHeader{Type: wire.EventToolCall}, CallID: call.ID, Name: name, Arguments: args}
}

// resultEvent is the tool_result event of a call's outcome.
func resultEvent(call chat.ToolCall, name string, out tools.Outcome) *wire.ToolResultEvent {
	return &wire.ToolResultEvent{EventHeader: wire.EventHeader{Type: wire.EventToolResult}, CallID: call.ID, Name: name, IsError: out.IsError(), Text: out.ForVisitor(), Confirmation: out.Confirmation, Asked: out.AskedList(), App: out.App}
}

// displayNamer is a Toolbox whose tools the model knows by other names than their owners
// do (tools.Namer): DisplayName is the name a tool's owner gave it, which the tool_call and
// tool_result events carry, so that a page finds its own tool by name.
type displayNamer interface {
	DisplayName(modelName string) string
}

func displayName(tb Toolbox, modelName string) string {
	if dn, ok := tb.(displayNamer); ok {
		return dn.DisplayName(modelName)
	}
	return modelName
}

// toolMessage is the answer to a call for the model.
func toolMessage(turnID string, call chat.ToolCall, out tools.Outcome) chat.Message {
	return chat.Message{
		Role:       chat.RoleTool,
		ToolCallID: call.ID,
		Name:       call.Name,
		Content:    out.ForModel(),
		TurnID:     turnID,
	}
}

// describeModelError turns a model error into one sentence for the user.
func describeModelError(err error) (msg string, retryable bool) {
	if e, ok := llm.AsError(err); ok {
		return e.Message, e.Retryable
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the model did not answer in time", true
	}
	return "the model call failed", false
}
