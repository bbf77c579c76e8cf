package agui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// Requests for the visitor's input. A server-side MCP server may ask the user something while
// one of its tools runs (elicitation/create, form or URL mode; MCP 2026-07-28's
// multi-round-trip form reaches the client the same way through go-sdk). In an AG-UI run the
// call's asker (mcpservers.WithAsker) hands the question to the run, which ends with the
// interrupt outcome, reason "input_required", while the MCP call stays parked in memory,
// waiting for the answer; the thread's next run answers it in its resume, waits for the tool's
// result, and goes on as after a confirmation (confirm.go holds the interrupts' shared
// bookkeeping: stored events, resume checks, answers).
//
// A server call runs on a context of its own (serverCall), detached from the run's request: the
// run that waits for it cancels it when it ends without its result, unless the call is parked.
// One owner at a time: the run waiting for the call (await), or, once parked, the Handler's
// registry (parkedCalls), from which exactly one of the resuming run, the expiry timer and
// Shutdown takes it. Bounds: one parked call per thread, maxParkedCalls per process, each for
// at most Options.InputTTL.

const (
	// reasonInput is the Interrupt.reason of a server's request for the visitor's input.
	reasonInput = "input_required"
	// defaultInputTTL is how long a parked call waits for its answer (Options.InputTTL): the
	// hard bound of a server tool call, which cuts it anyway (10 min).
	defaultInputTTL = mcpservers.DefaultMaxTimeout
	// maxParkedCalls bounds the calls parked in this process (Options.MaxParked).
	maxParkedCalls = 64
	// endGrace is how long a parked call that is ended (expired, shut down) may take to
	// finish once its server heard cancel, before its context is cancelled.
	endGrace = 5 * time.Second
	// expiresFormat is a question's expiresAt: RFC 3339 to the millisecond, the precision
	// of its expiry timer.
	expiresFormat = "2006-01-02T15:04:05.999Z07:00"
	// maxQuestionSchema bounds a form's schema as the interrupt carries it (bytes).
	maxQuestionSchema = 16 << 10
)

// Why a live call's context ends.
var (
	errQuestionExpired = errors.New("agui: the question for the visitor expired")
	errRunEnded        = errors.New("agui: the run that waited for the call ended")
)

// Elicitation actions (MCP).
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// question is one request of a server for the visitor's input, during a live call.
type question struct {
	id     string // the interrupt's id
	server string
	params *mcp.ElicitParams
	answer chan *mcp.ElicitResult // buffer 1: the first reply only
	once   sync.Once
}

// reply answers q; only the first reply counts.
func (q *question) reply(res *mcp.ElicitResult) {
	q.once.Do(func() { q.answer <- res })
}

// serverCall is a server tool call under way, which may ask the visitor.
type serverCall struct {
	key    string // the thread's
	call   chat.ToolCall
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan tools.Outcome // buffer 1: the call's outcome
	asked  chan *question     // buffer 1: a question for the run that waits for the call

	mu   sync.Mutex
	open *question // asked and not yet answered
}

// startCall runs call of a server tool on a context detached from ctx's cancellation (its
// values kept), whose servers' questions go to the returned serverCall (see await).
func (r *run) startCall(ctx context.Context, call chat.ToolCall) *serverCall {
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	lc := &serverCall{key: r.key, call: call, cancel: cancel, done: make(chan tools.Outcome, 1), asked: make(chan *question, 1)}
	lc.ctx = cctx
	// The asker is this call's alone (who names the call, not the thread): mcpservers ties a
	// question that comes without the call's context (elicitation/create) to it only while no
	// other call with an asker runs on that server, this thread's included, as a question
	// parks the one call it belongs to.
	cctx = mcpservers.WithAsker(cctx, r.key+"\x00"+call.ID, lc.ask)
	go func() {
		defer func() { // a goroutine of its own: a panic must not take the process down
			if p := recover(); p != nil {
				r.log.Error("agui: panic in a server tool call", zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
				r.h.o.Meter.CountPanic("agui_tool_call", p)
				lc.done <- tools.InternalError(call.Name)
			}
		}()
		lc.done <- mcpservers.Toolbox{Tools: r.h.o.ServerTools, Audience: mcpservers.AudienceWeb}.Call(cctx, call)
	}()
	return lc
}

// ask is the call's mcpservers.Asker: it hands the question to the run that waits for the
// call and waits for the visitor's answer. A second question while one is open is declined.
func (lc *serverCall) ask(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	q := &question{id: "int_" + randomID(16), server: server, params: p, answer: make(chan *mcp.ElicitResult, 1)}
	lc.mu.Lock()
	if lc.open != nil {
		lc.mu.Unlock()
		return &mcp.ElicitResult{Action: actionDecline}, nil
	}
	lc.open = q
	lc.mu.Unlock()
	defer func() {
		lc.mu.Lock()
		lc.open = nil
		lc.mu.Unlock()
	}()
	select {
	case lc.asked <- q:
	case <-lc.ctx.Done():
		return &mcp.ElicitResult{Action: actionCancel}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-q.answer:
		return res, nil
	case <-lc.ctx.Done():
		return &mcp.ElicitResult{Action: actionCancel}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// await waits, for run r, for the outcome of lc. A question of the call parks it (parked:
// the run ends with its interrupt; the call's outcome comes to the thread's next run); a
// question that cannot be parked is declined and the wait goes on. When ctx ends first the
// call is cancelled and its outcome awaited.
func (r *run) await(ctx context.Context, lc *serverCall) (out tools.Outcome, parked bool) {
	for {
		select {
		case out := <-lc.done:
			return out, false
		case q := <-lc.asked:
			if r.park(lc, q) {
				return tools.Handed(lc.call.Name), true
			}
			q.reply(&mcp.ElicitResult{Action: actionDecline})
		case <-ctx.Done():
			lc.cancel(errRunEnded)
			return <-lc.done, false
		}
	}
}

// park makes q an interrupt of the run and lc a parked call of the thread, when the bounds
// allow it (and the question can be put to a client: a form whose schema compiles).
func (r *run) park(lc *serverCall, q *question) bool {
	in, ok := r.h.questionInterrupt(lc.call, q)
	if !ok {
		r.log.Warn("agui: declined a server's question that cannot be put to the visitor", zap.String("server", q.server), zap.String("tool", lc.call.Name))
		return false
	}
	r.mu.Lock()
	full := len(r.interrupts) >= maxPendingInterrupts
	r.mu.Unlock()
	if full || !r.h.parked.add(r.key, &parkedCall{lc: lc, q: q}, r.h.inputTTL()) {
		r.log.Warn("agui: declined a server's question: the thread already waits for an answer, or too many calls wait", zap.String("server", q.server), zap.String("tool", lc.call.Name))
		return false
	}
	r.mu.Lock()
	r.interrupts = append(r.interrupts, raisedEvent{Type: eventInterruptRaised, Interrupt: in, Tool: lc.call.Name})
	r.mu.Unlock()
	r.log.Info("agui: a server asks the visitor", zap.String("interrupt", in.ID), zap.String("server", q.server), zap.String("tool", lc.call.Name))
	return true
}

// questionInterrupt is the interrupt that puts q to the visitor: its message, the answer's
// schema (the server's form; an empty object for a URL to open) and, in metadata, the
// server, the mode and the URL. False: q cannot be asked (a form with no usable schema).
func (h *Handler) questionInterrupt(call chat.ToolCall, q *question) (Interrupt, bool) {
	p := q.params
	if p == nil {
		return Interrupt{}, false
	}
	mode := p.Mode
	if mode == "" {
		mode = "form"
		if p.URL != "" {
			mode = "url"
		}
	}
	meta := map[string]any{"server": q.server, "mode": mode}
	in := Interrupt{
		ID:         q.id,
		Reason:     reasonInput,
		Message:    capText(p.Message, 1<<10),
		ToolCallID: call.ID,
		ExpiresAt:  h.now().Add(h.inputTTL()).UTC().Format(expiresFormat),
	}
	switch mode {
	case "form":
		schema, err := json.Marshal(p.RequestedSchema)
		if err != nil || p.RequestedSchema == nil || len(schema) > maxQuestionSchema || !bytes.HasPrefix(schema, []byte("{")) {
			return Interrupt{}, false
		}
		if _, err := tools.CompileSchema(schema); err != nil {
			return Interrupt{}, false
		}
		in.ResponseSchema = schema
	case "url":
		if p.URL == "" || len(p.URL) > 8<<10 {
			return Interrupt{}, false
		}
		meta["url"] = p.URL
		if p.ElicitationID != "" {
			meta["elicitationId"] = p.ElicitationID
		}
		in.Message = capText(p.Message, 1<<10) + "\n\nOpen: " + p.URL
		in.ResponseSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false,"description":"Resolve with {} once the visitor completed the page at metadata.url; resolve without a payload to decline."}`)
	default:
		return Interrupt{}, false
	}
	in.Metadata, _ = json.Marshal(meta)
	return in, true
}

func (h *Handler) inputTTL() time.Duration {
	if h.o.InputTTL > 0 {
		return h.o.InputTTL
	}
	return defaultInputTTL
}

// decideInput reads entry i, the answer to the open question r: resolved with an object
// payload accepts (a form's payload validated against the server's schema: 400 otherwise,
// the question still open), resolved without one declines, cancelled cancels. An answer
// after the question's expiry is expired, whatever it says.
func (h *Handler) decideInput(ctx context.Context, i int, e ResumeEntry, r raisedEvent, call chat.ToolCall, now time.Time) (decision, *httpError) {
	d := decision{raised: r, call: call}
	bad := func(format string, a ...any) (decision, *httpError) {
		return decision{}, &httpError{http.StatusBadRequest, fmt.Sprintf("resume[%d]: ", i) + fmt.Sprintf(format, a...)}
	}
	if exp, err := time.Parse(time.RFC3339Nano, r.Interrupt.ExpiresAt); err == nil && !now.Before(exp) {
		d.kind = decisionExpired
		return d, nil
	}
	if e.Status == ResumeCancelled {
		d.kind, d.answer = decisionCancelled, &mcp.ElicitResult{Action: actionCancel}
		return d, nil
	}
	payload := bytes.TrimSpace(e.Payload)
	if len(payload) == 0 {
		d.kind, d.answer = decisionDeclined, &mcp.ElicitResult{Action: actionDecline}
		return d, nil
	}
	var content map[string]any
	if payload[0] != '{' || json.Unmarshal(payload, &content) != nil {
		return bad("the payload must be an object: the answer to the server's question (resolve without a payload to decline)")
	}
	if sch, err := tools.CompileSchema(r.Interrupt.ResponseSchema); err == nil {
		if err := sch.Validate(ctx, payload); err != nil {
			return bad("the answer does not match the question's responseSchema: %v", err)
		}
	}
	d.kind = decisionAnswered
	d.answer = &mcp.ElicitResult{Action: actionAccept}
	if metadataMode(r.Interrupt.Metadata) != "url" {
		d.answer.Content = content
	}
	return d, nil
}

func metadataMode(meta json.RawMessage) string {
	var m struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.Mode
}

// answerQuestion carries out d, the answer to a question: the parked call gets the answer and
// the run waits for its outcome (parked again when the server asks anew: no tool message
// then). A question whose call is not parked here (restarted, another replica, expired)
// answers the call for the model as of unknown outcome.
func (r *run) answerQuestion(ctx context.Context, d decision) (out tools.Outcome, parked bool) {
	pc := r.h.parked.take(r.key, d.raised.Interrupt.ID)
	switch {
	case d.kind == decisionExpired:
		if pc != nil {
			pc.end(errQuestionExpired)
		}
		return tools.Outcome{Kind: tools.ToolError, Name: d.call.Name, Text: "the visitor did not answer the server's question before it expired at " +
			d.raised.Interrupt.ExpiresAt + ": the call was cancelled, its outcome is unknown"}, false
	case pc == nil:
		return tools.Outcome{Kind: tools.ToolError, Name: d.call.Name, Text: "the server's question is no longer waiting for its answer " +
			"(it expired, or the agent restarted or moved the thread to another replica): the call was cancelled, its outcome is unknown"}, false
	}
	pc.q.reply(d.answer)
	return r.await(ctx, pc.lc)
}

// dropParked ends the calls the run parked: the run ended without its interrupts reaching
// the thread (cancelled, failed, or not stored).
func (r *run) dropParked() {
	r.mu.Lock()
	ins := append([]raisedEvent(nil), r.interrupts...)
	r.mu.Unlock()
	for _, in := range ins {
		if in.Interrupt.Reason != reasonInput {
			continue
		}
		if pc := r.h.parked.take(r.key, in.Interrupt.ID); pc != nil {
			pc.end(errRunEnded)
		}
	}
}

// parkedCall is a live call waiting for the answer to its question q.
type parkedCall struct {
	lc    *serverCall
	q     *question
	timer *time.Timer
}

// end answers the question cancel, so that the server hears it and ends its call, and
// cancels the call endGrace later if it has not ended by then.
func (pc *parkedCall) end(cause error) {
	pc.q.reply(&mcp.ElicitResult{Action: actionCancel})
	time.AfterFunc(endGrace, func() { pc.lc.cancel(cause) })
}

// parkedCalls holds the parked calls of this process, one per thread at most; it guards
// only its map. Each call leaves it once, by take (the resuming run, the expiry timer,
// Shutdown's closeAll), and its taker ends or resumes it.
type parkedCalls struct {
	max int

	mu       sync.Mutex
	byThread map[string]*parkedCall
	closed   bool
}

// add parks pc for thread key until ttl passes (then it is ended as expired); false when the
// thread already has a parked call, the bound is reached, or the handler shuts down.
func (p *parkedCalls) add(key string, pc *parkedCall, ttl time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byThread == nil {
		p.byThread = map[string]*parkedCall{}
	}
	if p.closed || p.byThread[key] != nil || len(p.byThread) >= p.max {
		return false
	}
	p.byThread[key] = pc
	id := pc.q.id
	pc.timer = time.AfterFunc(ttl, func() {
		if got := p.take(key, id); got != nil {
			got.end(errQuestionExpired)
		}
	})
	return true
}

// take removes and returns thread key's parked call if its question is id (nil otherwise).
func (p *parkedCalls) take(key, id string) *parkedCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.byThread[key]
	if pc == nil || pc.q.id != id {
		return nil
	}
	delete(p.byThread, key)
	pc.timer.Stop()
	return pc
}

// len is the number of parked calls.
func (p *parkedCalls) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byThread)
}

// closeAll ends every parked call and refuses new ones (shutdown).
func (p *parkedCalls) closeAll() {
	p.mu.Lock()
	p.closed = true
	all := make([]*parkedCall, 0, len(p.byThread))
	for key, pc := range p.byThread {
		delete(p.byThread, key)
		pc.timer.Stop()
		all = append(all, pc)
	}
	p.mu.Unlock()
	for _, pc := range all {
		pc.end(errShutdown)
	}
}

// asking reports whether the run raised interrupts (a resumed call's server asked again).
func (r *run) asking() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.interrupts) > 0
}

// endAsking ends a resuming run whose resumed calls asked again: their interrupts are stored
// with the run's end, and RUN_FINISHED carries them after the interrupts still open.
func (r *run) endAsking(ctx context.Context, p *plan) {
	none := ""
	raised := r.raisedEvents()
	if err := r.h.o.Store.Append(context.WithoutCancel(ctx), r.key, store.Batch{Events: raised, ActiveTurn: &none}); err != nil {
		r.log.Error("agui: storing the run", zap.Error(err))
		r.dropParked()
		r.out.send(runError{Type: EventRunError, Message: "internal error", Code: "internal_error"})
		return
	}
	r.mu.Lock()
	ins := append(interruptsOf(p.held), interruptsOf(r.interrupts)...)
	r.mu.Unlock()
	fin := runFinished{Type: EventRunFinished, ThreadID: r.in.ThreadID, RunID: r.in.RunID, Outcome: &runOutcome{Type: "interrupt", Interrupts: ins}}
	if len(p.warnings) > 0 {
		fin.Result = &runResult{Warnings: p.warnings}
	}
	r.out.send(fin)
}
