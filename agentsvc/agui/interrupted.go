package agui

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// A run stores the messages that complete part of it as they come (the model's response
// that asks for calls, each call's answer: loop.Turn.Record), so a run cut short by a crash
// or a replica's death leaves in the thread every call made and every result that came
// back, and the thread's active turn set. The next run on the thread (which holds its claim:
// the run that was cut no longer does) closes that turn as interrupted: each call left
// unanswered gets an answer saying its outcome is unknown, and the turn ends with a mark
// (an assistant message with only chat.Message.End) that the client sees in the snapshot as
// the interrupted answer and the model never reads as said (llm turns it into "no answer"
// after a user message, and leaves it out elsewhere): no two user messages in a row.

// interruptedText is what the client sees of a run cut short.
const interruptedText = "(This answer was interrupted: the agent stopped before it finished. Please ask again.)"

// outcomeUnknown answers a call of an interrupted run whose result never came back.
const outcomeUnknown = "The outcome of this call is unknown: it was sent, but the agent stopped before its result came back, so it may or may not have run. Check before doing it again."

// recordTimeout bounds the store write of one recorded part of a run.
const recordTimeout = 10 * time.Second

// turnInterrupted is byomcp_turns_total's label for a run closed as interrupted.
const turnInterrupted = "interrupted"

// record is the run's loop.Turn.Record: msgs, with the ids the client knows them by, are
// stored before ev goes on to the client. After a failed write nothing more is recorded:
// what is left is stored when the run ends, in order.
func (r *run) record(ev wire.Event, msgs []chat.Message) {
	r.mu.Lock()
	failed := r.recordFailed
	out := make([]chat.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case chat.RoleAssistant: // the response of the model call just made
			if n := len(r.rounds); n > 0 {
				m.ID = r.rounds[n-1]
			} else {
				m.ID = newMessageID()
			}
		case chat.RoleTool:
			m.ID = r.results[m.ToolCallID]
		}
		out = append(out, m)
	}
	r.mu.Unlock()
	if !failed {
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		err := r.h.o.Store.Append(ctx, r.key, store.Batch{Messages: out})
		cancel()
		r.mu.Lock()
		if err != nil {
			r.recordFailed = true
			r.log.Warn("agui: storing a part of the run; the rest is stored when it ends", zap.Error(err))
		} else {
			for _, m := range out {
				r.recorded[recordedKey(m)] = true
			}
		}
		r.mu.Unlock()
	}
	r.onEvent(ev)
}

// recordedKey names a message of the run: its call for a tool message (whose id is "" when
// the client never saw the call), its id otherwise.
func recordedKey(m chat.Message) string {
	if m.Role == chat.RoleTool {
		return "tool:" + m.ToolCallID
	}
	return m.ID
}

// unrecorded leaves out of msgs (identified) those record stored.
func (r *run) unrecorded(msgs []chat.Message) []chat.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := msgs[:0:0]
	for _, m := range msgs {
		if !r.recorded[recordedKey(m)] {
			out = append(out, m)
		}
	}
	return out
}

// closeInterrupted closes the run a crash or a replica's death cut short on thread s (its
// ActiveTurn), once this handler holds the thread's claim: read again (the run may have
// ended between the first read and the claim), each of that run's calls left unanswered is
// answered as of unknown outcome, the run ends with the interrupted mark, and it is counted
// as interrupted. It returns the thread as it is now.
func (h *Handler) closeInterrupted(ctx context.Context, s *store.Session, log *zap.Logger) (*store.Session, error) {
	s, err := h.o.Store.Load(ctx, s.ID)
	if err != nil || s.ActiveTurn == "" {
		return s, err
	}
	turn := s.ActiveTurn
	answered := map[string]bool{}
	for _, m := range s.Messages {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var added []chat.Message
	for _, m := range s.Messages {
		if m.TurnID != turn {
			continue
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				answered[tc.ID] = true
				added = append(added, chat.Message{ID: newMessageID(), Role: chat.RoleTool, ToolCallID: tc.ID, Name: tc.Name, TurnID: turn,
					Content: tools.Wrap(tc.Name, outcomeUnknown, true)})
			}
		}
	}
	// A confirmed call whose run was cut while the tool ran (its answer stored, its result
	// not: confirm.go's resolve) may or may not have run too.
	ti, err := h.loadInterrupts(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, id := range ti.order {
		in := ti.raised[id]
		callID := in.Interrupt.ToolCallID
		if ti.answered[id] != decisionApproved || answered[callID] {
			continue
		}
		answered[callID] = true
		added = append(added, chat.Message{ID: newMessageID(), Role: chat.RoleTool, ToolCallID: callID, Name: in.Tool, TurnID: turn,
			Content: tools.Wrap(in.Tool, outcomeUnknown, true)})
	}
	added = append(added, chat.Message{ID: newMessageID(), Role: chat.RoleAssistant, TurnID: turn,
		End: &chat.TurnEnd{StopReason: wire.StopError, Error: interruptedText}})
	none := ""
	if err := h.o.Store.Append(ctx, s.ID, store.Batch{Messages: added, ActiveTurn: &none}); err != nil {
		return nil, err
	}
	h.o.Meter.CountTurn(turnInterrupted)
	log.Info("agui: marked an interrupted run", zap.String("turn", turn), zap.Int("unknownOutcomes", len(added)-1))
	s.Messages = append(s.Messages, added...)
	s.ActiveTurn = ""
	return s, nil
}
