package agui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// Confirmations. A server tool that needs the visitor's confirmation (destructiveHint, or
// named in --confirm-tools or the site's confirmTools) does not run in the run whose model
// called it: that run ends with RUN_FINISHED's interrupt outcome, one interrupt per such call,
// and the thread's next run answers each in its input's resume (AG-UI 1.0, "Interrupts and
// Resume"). The thread's event log in the store is the state, so a restart or another
// replica resolves it: an agui_interrupt event per interrupt, stored with the end of the run
// that raised it, and an agui_resume event per answer, stored before the tool runs (a crash
// never runs it twice), with the call's tool message when the tool does not run. An
// interrupt is open while it has no agui_resume event and its call no answer.
//
// An input that leaves an open interrupt unanswered does not abandon it (the spec: omission
// is not abandonment): what its entries answer is done, its new user messages are held
// back (the client sends them again with the answer), the model is not called, and the run
// ends with the interrupt outcome again, carrying the interrupts still open.

const (
	// reasonConfirmation is the Interrupt.reason of a confirmation.
	reasonConfirmation = "confirmation"
	// maxPendingInterrupts bounds the interrupts open on a thread: a model response that asks
	// for more confirmations gets the others answered as not run. A run with interrupts open
	// never calls the model, so this is also the bound per run.
	maxPendingInterrupts = 16
	// maxResumeEntries bounds the resume entries of one input (413).
	maxResumeEntries = 64
	// maxPayloadBytes bounds one resume entry's payload as sent (413).
	maxPayloadBytes = 16 << 10
	// maxDeclineReason bounds the reason the visitor gives (bytes; 400).
	maxDeclineReason = 1 << 10
	// defaultInterruptTTL is how long a confirmation may be answered (Options.InterruptTTL).
	defaultInterruptTTL = 15 * time.Minute

	eventInterruptRaised   = "agui_interrupt"
	eventInterruptAnswered = "agui_resume"
)

// Decisions: how an interrupt was answered.
const (
	decisionApproved  = "approved"
	decisionDeclined  = "declined"
	decisionCancelled = "cancelled"
	decisionExpired   = "expired"
	decisionAnswered  = "answered" // a server's question, answered (elicit.go)
)

// raisedEvent is the stored agui_interrupt event: the interrupt as sent, and the tool.
type raisedEvent struct {
	Seq       int64     `json:"seq"`
	Type      string    `json:"type"`
	Interrupt Interrupt `json:"interrupt"`
	Tool      string    `json:"tool"`
}

// answeredEvent is the stored agui_resume event: how an interrupt was answered, and when.
type answeredEvent struct {
	Seq         int64  `json:"seq"`
	Type        string `json:"type"`
	InterruptID string `json:"interruptId"`
	ToolCallID  string `json:"toolCallId"`
	Decision    string `json:"decision"`
	Edited      bool   `json:"edited,omitempty"`
	At          string `json:"at"`
}

// threadInterrupts is what a thread's event log says of its interrupts.
type threadInterrupts struct {
	seq      int64                  // the thread's last event seq
	raised   map[string]raisedEvent // by interrupt id
	order    []string               // interrupt ids, as raised
	answered map[string]string      // interrupt id → decision
}

// loadInterrupts reads the interrupts of thread s from its event log.
func (h *Handler) loadInterrupts(ctx context.Context, s *store.Session) (*threadInterrupts, error) {
	evs, err := h.o.Store.EventsAfter(ctx, s.ID, 0, 0)
	if err != nil {
		return nil, err
	}
	ti := &threadInterrupts{seq: s.Seq, raised: map[string]raisedEvent{}, answered: map[string]string{}}
	for _, e := range evs {
		ti.seq = max(ti.seq, e.Seq)
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e.Data, &head) != nil {
			continue
		}
		switch head.Type {
		case eventInterruptRaised:
			var r raisedEvent
			if json.Unmarshal(e.Data, &r) == nil && r.Interrupt.ID != "" {
				if _, dup := ti.raised[r.Interrupt.ID]; !dup {
					ti.order = append(ti.order, r.Interrupt.ID)
				}
				ti.raised[r.Interrupt.ID] = r
			}
		case eventInterruptAnswered:
			var a answeredEvent
			if json.Unmarshal(e.Data, &a) == nil {
				ti.answered[a.InterruptID] = a.Decision
			}
		}
	}
	return ti, nil
}

// open returns the interrupts not answered whose call is unanswered in msgs, as raised.
func (ti *threadInterrupts) open(msgs []chat.Message) []raisedEvent {
	answered := answeredCalls(msgs)
	var out []raisedEvent
	for _, id := range ti.order {
		r := ti.raised[id]
		if _, done := ti.answered[id]; done || answered[r.Interrupt.ToolCallID] {
			continue
		}
		out = append(out, r)
	}
	return out
}

func answeredCalls(msgs []chat.Message) map[string]bool {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	return answered
}

func findCall(msgs []chat.Message, callID string) (chat.ToolCall, bool) {
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == callID {
				return tc, true
			}
		}
	}
	return chat.ToolCall{}, false
}

func interruptsOf(rs []raisedEvent) []Interrupt {
	out := make([]Interrupt, len(rs))
	for i, r := range rs {
		out[i] = r.Interrupt
	}
	return out
}

// decision is the answer to one open interrupt that a run carries out.
type decision struct {
	raised raisedEvent
	call   chat.ToolCall // the held call; Arguments are those that run (edited or the model's)
	kind   string        // decisionApproved, …
	edited bool
	reason string            // the visitor's, for a decline
	answer *mcp.ElicitResult // for a server's question: what the server gets (elicit.go)
}

// resumePlan is what an input's resume entries do: the decisions to carry out, the
// interrupts left open, and the warnings of entries not taken.
type resumePlan struct {
	decisions []decision
	held      []raisedEvent
	warnings  []string
}

// confirmPayload is the answer a confirmation asks for (its responseSchema).
type confirmPayload struct {
	Approved  *bool           `json:"approved"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Reason    *string         `json:"reason,omitempty"`
}

// checkResume works out what the input's resume entries answer among the thread's open
// interrupts. Refused before anything is stored or sent: too many entries or too large a
// payload (413), two entries for one interrupt, or an answer the interrupt cannot take (400:
// the interrupt stays open, to be answered again), an interrupt already answered (409: an
// interrupt is answered once). An entry naming no interrupt of the thread is not taken, with
// a warning (the spec's rule for an unrecognised entry).
func (h *Handler) checkResume(ctx context.Context, ti *threadInterrupts, msgs []chat.Message, entries []ResumeEntry, site Site) (*resumePlan, *httpError) {
	if len(entries) > maxResumeEntries {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("resume has %d entries, at most %d", len(entries), maxResumeEntries)}
	}
	open := ti.open(msgs)
	byID := map[string]raisedEvent{}
	for _, r := range open {
		byID[r.Interrupt.ID] = r
	}
	now := h.now()
	rp := &resumePlan{}
	seen := map[string]bool{}
	for i, e := range entries {
		if len(e.Payload) > maxPayloadBytes {
			return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("resume[%d]: the payload is %d bytes, at most %d", i, len(e.Payload), maxPayloadBytes)}
		}
		if seen[e.InterruptID] {
			return nil, &httpError{http.StatusBadRequest, fmt.Sprintf("resume[%d]: interrupt %q is answered by an earlier entry", i, truncate(e.InterruptID, 80))}
		}
		seen[e.InterruptID] = true
		r, isOpen := byID[e.InterruptID]
		if !isOpen {
			if _, ours := ti.raised[e.InterruptID]; ours {
				return nil, &httpError{http.StatusConflict, fmt.Sprintf("resume[%d]: interrupt %q was already answered: an interrupt is answered once", i, truncate(e.InterruptID, 80))}
			}
			rp.warnings = append(rp.warnings, fmt.Sprintf("resume[%d]: interrupt %q is not one of this thread's: the entry was not taken", i, truncate(e.InterruptID, 80)))
			continue
		}
		call, ok := findCall(msgs, r.Interrupt.ToolCallID)
		if !ok { // cannot happen: the call was stored before its interrupt
			return nil, &httpError{http.StatusInternalServerError, "internal error"}
		}
		var d decision
		var herr *httpError
		if r.Interrupt.Reason == reasonInput {
			d, herr = h.decideInput(ctx, i, e, r, call, now)
		} else {
			d, herr = h.decide(ctx, i, e, r, call, now, site)
		}
		if herr != nil {
			return nil, herr
		}
		rp.decisions = append(rp.decisions, d)
	}
	for _, r := range open {
		if !seen[r.Interrupt.ID] {
			rp.held = append(rp.held, r)
		}
	}
	return rp, nil
}

// decide reads entry i, the answer to the open interrupt r of call.
func (h *Handler) decide(ctx context.Context, i int, e ResumeEntry, r raisedEvent, call chat.ToolCall, now time.Time, site Site) (decision, *httpError) {
	d := decision{raised: r, call: call}
	bad := func(format string, a ...any) (decision, *httpError) {
		return decision{}, &httpError{http.StatusBadRequest, fmt.Sprintf("resume[%d]: ", i) + fmt.Sprintf(format, a...)}
	}
	if exp, err := time.Parse(time.RFC3339Nano, r.Interrupt.ExpiresAt); err == nil && !now.Before(exp) {
		d.kind = decisionExpired // whatever it says: it can no longer be answered
		return d, nil
	}
	var p confirmPayload
	hasPayload := len(e.Payload) > 0 && string(e.Payload) != "null"
	if hasPayload {
		dec := json.NewDecoder(bytes.NewReader(e.Payload))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return bad(`the payload must be an object {"approved": true|false, "arguments"?: {…}, "reason"?: "…"} (%s)`, describeJSON(err))
		}
		if p.Reason != nil && len(*p.Reason) > maxDeclineReason {
			return bad("reason is %d bytes, at most %d", len(*p.Reason), maxDeclineReason)
		}
		if p.Reason != nil {
			d.reason = strings.TrimSpace(*p.Reason)
		}
	}
	if e.Status == ResumeCancelled {
		d.kind = decisionCancelled
		return d, nil
	}
	if p.Approved == nil {
		return bad(`a resolved confirmation needs its payload {"approved": true|false}`)
	}
	if !*p.Approved {
		d.kind = decisionDeclined
		return d, nil
	}
	d.kind = decisionApproved
	if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
		args := bytes.TrimSpace(p.Arguments)
		if len(args) == 0 || args[0] != '{' {
			return bad("arguments must be an object")
		}
		if sch := h.serverSchema(call.Name, site); sch != nil {
			if err := sch.Validate(ctx, args); err != nil {
				return bad("the edited arguments do not match the tool's schema: %v", err)
			}
		}
		d.call.Arguments = string(args)
		d.edited = true
	}
	return d, nil
}

// describeJSON says what is wrong with a payload in a few words.
func describeJSON(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "not JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func (h *Handler) now() time.Time {
	if h.o.Now != nil {
		return h.o.Now()
	}
	return time.Now()
}

// serverDef is the web server tool name as offered, if the site allows it.
func (h *Handler) serverDef(name string, site Site) (chat.ToolDef, bool) {
	if h.o.ServerTools == nil || !site.AllowsServer(name) {
		return chat.ToolDef{}, false
	}
	for _, d := range h.o.ServerTools.ToolDefs(mcpservers.AudienceWeb) {
		if d.Name == name {
			return d, true
		}
	}
	return chat.ToolDef{}, false
}

// serverSchema is the compiled input schema of a server tool (nil: unknown or not
// compilable; the server validates again when it is called).
func (h *Handler) serverSchema(name string, site Site) *tools.Schema {
	d, ok := h.serverDef(name, site)
	if !ok {
		return nil
	}
	sch, err := tools.CompileSchema(d.Parameters)
	if err != nil {
		return nil
	}
	return sch
}

// needsConfirmation reports whether a call of the server tool name waits for the visitor:
// the tool's destructiveHint, or the confirm policy (--confirm-tools, the site's
// confirmTools) naming it, as for a page socket's conversation.
func (r *run) needsConfirmation(name string) bool {
	return mcpservers.NeedsConfirmation(r.h.o.ServerTools, name, r.h.o.ConfirmTools, r.site.Confirms)
}

// hold makes call of a server tool that needs confirmation an interrupt of the run: the call
// is handed off (no answer in this run) and the run ends with the interrupt outcome.
func (r *run) hold(ctx context.Context, call chat.ToolCall) tools.Outcome {
	if sch := r.h.serverSchema(call.Name, r.site); sch != nil {
		if err := sch.Validate(ctx, json.RawMessage(call.Arguments)); err != nil {
			return tools.InvalidArguments(call.Name, err) // the model corrects it before anyone is asked
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.interrupts) >= maxPendingInterrupts {
		return tools.Outcome{Kind: tools.OverLimit, Name: call.Name, Text: fmt.Sprintf(
			"not run: at most %d calls may wait for the visitor's confirmation at once; call it again once these are answered", maxPendingInterrupts)}
	}
	in := Interrupt{
		ID:             "int_" + randomID(16),
		Reason:         reasonConfirmation,
		Message:        confirmMessage(call),
		ToolCallID:     call.ID,
		ResponseSchema: r.responseSchema(call.Name),
		ExpiresAt:      r.h.now().Add(r.h.interruptTTL()).UTC().Format(time.RFC3339),
	}
	r.interrupts = append(r.interrupts, raisedEvent{Type: eventInterruptRaised, Interrupt: in, Tool: call.Name})
	return tools.Handed(call.Name)
}

func (h *Handler) interruptTTL() time.Duration {
	if h.o.InterruptTTL > 0 {
		return h.o.InterruptTTL
	}
	return defaultInterruptTTL
}

// confirmMessage is the interrupt's prompt for the visitor.
func confirmMessage(call chat.ToolCall) string {
	return fmt.Sprintf("Allow the agent to run %s with these arguments? %s", call.Name, capText(argsOrEmpty(call.Arguments), 1<<10))
}

// responseSchema is the JSON Schema of a confirmation's answer: approved, and the arguments
// the visitor may edit (the tool's own schema, when it is self-contained) or a reason to
// decline that the model reads.
func (r *run) responseSchema(tool string) json.RawMessage {
	args := json.RawMessage(`{"type":"object","description":"The arguments to run the tool with, edited by the visitor; absent: the model's."}`)
	if d, ok := r.h.serverDef(tool, r.site); ok && len(d.Parameters) > 0 && !bytes.Contains(d.Parameters, []byte(`"$ref"`)) && !bytes.Contains(d.Parameters, []byte(`"$dynamicRef"`)) {
		args = d.Parameters // a $ref would point elsewhere once nested
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"approved":  map[string]any{"type": "boolean", "description": "true runs the call; false declines it."},
			"arguments": args,
			"reason":    map[string]any{"type": "string", "maxLength": maxDeclineReason, "description": "Why the visitor declined; the agent reads it."},
		},
		"required":             []string{"approved"},
		"additionalProperties": false,
	}
	b, _ := json.Marshal(schema)
	return b
}

// raisedEvents returns the run's interrupts in the model's order, numbered from the
// thread's next seq, and r.seq advanced past them.
func (r *run) raisedEvents() []store.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.order != nil {
		slices.SortStableFunc(r.interrupts, func(a, b raisedEvent) int {
			return r.order.pos[a.Interrupt.ToolCallID] - r.order.pos[b.Interrupt.ToolCallID]
		})
	}
	evs := make([]store.Event, 0, len(r.interrupts))
	for i := range r.interrupts {
		r.seq++
		r.interrupts[i].Seq = r.seq
		b, _ := json.Marshal(r.interrupts[i])
		evs = append(evs, store.Event{Seq: r.seq, Data: b})
	}
	return evs
}

// answeredEventOf is the stored agui_resume event of d, numbered next.
func (r *run) answeredEventOf(d decision) store.Event {
	r.mu.Lock()
	r.seq++
	seq := r.seq
	r.mu.Unlock()
	b, _ := json.Marshal(answeredEvent{Seq: seq, Type: eventInterruptAnswered, InterruptID: d.raised.Interrupt.ID,
		ToolCallID: d.call.ID, Decision: d.kind, Edited: d.edited, At: r.h.now().UTC().Format(time.RFC3339)})
	return store.Event{Seq: seq, Data: b}
}

// resolve carries out the decisions of the run's resume entries, in order: each is stored
// (its agui_resume event first, so that no crash runs a tool twice), the approved calls run
// with their arguments, the answered questions go to their parked calls (elicit.go), and
// each call's result is sent as TOOL_CALL_RESULT. It returns the calls' tool messages, or
// false when the store failed (the run ends with RUN_ERROR). A call whose server asks again
// is parked again, with no tool message: the run then ends with its new interrupt.
func (r *run) resolve(ctx context.Context, ds []decision) ([]chat.Message, bool) {
	var out []chat.Message
	meter := r.h.o.Meter
	for _, d := range ds {
		name := d.call.Name
		start := time.Now()
		var res tools.Outcome
		msg := chat.Message{ID: newMessageID(), Role: chat.RoleTool, ToolCallID: d.call.ID, Name: name, TurnID: r.turnID}
		if d.raised.Interrupt.Reason == reasonInput {
			// The answer is stored before the server gets it: a question is answered once.
			if err := r.h.o.Store.Append(ctx, r.key, store.Batch{Events: []store.Event{r.answeredEventOf(d)}}); err != nil {
				r.log.Error("agui: storing the answer to an interrupt", zap.Error(err))
				return out, false
			}
			var parked bool
			res, parked = r.answerQuestion(ctx, d)
			r.log.Info("agui: interrupt answered", zap.String("interrupt", d.raised.Interrupt.ID), zap.String("tool", name), zap.String("decision", d.kind))
			if parked {
				meter.ObserveToolCall("server", res.Label(), time.Since(start))
				continue
			}
			msg.Content = res.ForModel()
			if err := r.h.o.Store.Append(context.WithoutCancel(ctx), r.key, store.Batch{Messages: []chat.Message{msg}}); err != nil {
				r.log.Error("agui: storing the result of a call that asked the visitor", zap.Error(err))
				return out, false
			}
		} else if d.kind == decisionApproved {
			// The answer is stored before the tool runs: it is answered once, even if this
			// replica dies while the tool runs (the next run says its outcome is unknown).
			if err := r.h.o.Store.Append(ctx, r.key, store.Batch{Events: []store.Event{r.answeredEventOf(d)}}); err != nil {
				r.log.Error("agui: storing the answer to an interrupt", zap.Error(err))
				return out, false
			}
			res = mcpservers.Toolbox{Tools: r.h.o.ServerTools, Audience: mcpservers.AudienceWeb}.Call(ctx, d.call)
			if d.edited {
				res.Text = "The visitor confirmed this call with edited arguments: " + d.call.Arguments + "\n\n" + res.Text
			}
			msg.Content = res.ForModel()
			if err := r.h.o.Store.Append(context.WithoutCancel(ctx), r.key, store.Batch{Messages: []chat.Message{msg}}); err != nil {
				r.log.Error("agui: storing the result of a confirmed call", zap.Error(err))
				return out, false
			}
		} else {
			res = notConfirmed(d)
			msg.Content = res.ForModel()
			if err := r.h.o.Store.Append(ctx, r.key, store.Batch{Messages: []chat.Message{msg}, Events: []store.Event{r.answeredEventOf(d)}}); err != nil {
				r.log.Error("agui: storing the answer to an interrupt", zap.Error(err))
				return out, false
			}
		}
		meter.ObserveToolCall("server", res.Label(), time.Since(start))
		if d.raised.Interrupt.Reason != reasonInput {
			r.log.Info("agui: interrupt answered", zap.String("interrupt", d.raised.Interrupt.ID), zap.String("tool", name), zap.String("decision", d.kind))
		}
		r.mu.Lock()
		r.results[d.call.ID] = msg.ID
		r.resultSent[d.call.ID] = true
		r.mu.Unlock()
		r.out.send(toolCallResult{Type: EventToolCallResult, MessageID: msg.ID, ToolCallID: d.call.ID, Content: res.ForVisitor(), Role: RoleTool})
		out = append(out, msg)
	}
	return out, true
}

// notConfirmed is the answer to a call the visitor did not confirm: the tool did not run.
func notConfirmed(d decision) tools.Outcome {
	name := d.call.Name
	var text string
	switch d.kind {
	case decisionDeclined:
		text = "not run: the visitor declined this call"
	case decisionCancelled:
		text = "not run: the visitor cancelled the confirmation of this call"
	default: // expired
		text = "not run: the visitor did not confirm this call before its confirmation expired at " + d.raised.Interrupt.ExpiresAt
	}
	if d.reason != "" && d.kind != decisionExpired {
		text += ", saying: " + quoteReason(d.reason)
	}
	return tools.Outcome{Kind: tools.ToolError, Name: name, Text: text}
}

// quoteReason is the visitor's reason as one quoted line.
func quoteReason(s string) string {
	b, _ := json.Marshal(oneLine(s))
	return string(b)
}

// unheldAnswers answers the calls the run held that the loop then answered no other way
// (a run cancelled or failed after they were held: never asked, never run).
func (r *run) unheldAnswers(msgs []chat.Message) []chat.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	answered := answeredCalls(msgs)
	var out []chat.Message
	for _, in := range r.interrupts {
		if answered[in.Interrupt.ToolCallID] {
			continue
		}
		text := "not run: the run ended before the visitor was asked to confirm this call"
		if in.Interrupt.Reason == reasonInput {
			text = "cancelled: the run ended before the visitor was asked the server's question; the call's outcome is unknown"
		}
		out = append(out, chat.Message{ID: r.results[in.Interrupt.ToolCallID], Role: chat.RoleTool, ToolCallID: in.Interrupt.ToolCallID,
			Name: in.Tool, TurnID: r.turnID, Content: tools.Wrap(in.Tool, text, true)})
	}
	return out
}
