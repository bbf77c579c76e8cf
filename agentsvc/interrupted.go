package agentsvc

import (
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// turnTakenOver is byomcp_turns_total's label for a turn that another replica was running
// when this replica took its session over, because that replica stopped renewing its claim
// (it died, or lost the store) while a page here served the turn (proxy.takeOver). The turn
// is closed here as interrupted (turn_end {stopReason: error, interrupted: true}) and
// counted once, here, under this label instead of turnInterrupted: the replica that ran it
// could not count it.
const turnTakenOver = "taken_over"

// cutTurnLabel is byomcp_turns_total's label for a turn left running in the store that is
// closed as session id is resumed for socket c: turnTakenOver when c's proxy is taking the
// session over from the replica that ran the turn (proxy.takeOver; the socket keeps its proxy
// until it has the session), turnInterrupted otherwise.
func cutTurnLabel(c *pageConn, id string) string {
	if px := c.boundProxy(); px != nil && px.id == id && px.taking.Load() {
		return turnTakenOver
	}
	return turnInterrupted
}

// closeCutTurn is recoverInterrupted (see there) counted in byomcp_turns_total under label
// (turnInterrupted or turnTakenOver).
func (ls *liveSession) closeCutTurn(turnID, text, label string) {
	none := ""
	ls.mu.Lock()
	for _, m := range unanswered(ls.messages, turnID) {
		ls.emitLocked(&wire.ToolResultEvent{EventHeader: wire.EventHeader{Type: wire.EventToolResult, TurnID: turnID}, CallID: m.ToolCallID, Name: m.Name, IsError: true, Text: outcomeUnknown},
			[]chat.Message{m}, nil)
	}
	ls.emitLocked(&wire.ErrorEvent{EventHeader: wire.EventHeader{Type: wire.EventError, TurnID: turnID}, Message: text, Retryable: true}, nil, nil)
	ls.emitLocked(&wire.TurnEndEvent{EventHeader: wire.EventHeader{Type: wire.EventTurnEnd, TurnID: turnID}, StopReason: wire.StopError, Text: text, Interrupted: true},
		markEnd(turnID, nil, wire.StopError, text), &none)
	ls.mu.Unlock()
	// Counted where it is closed: the process that ran it could not count it.
	ls.hub.srv.metrics.turns.WithLabelValues(label).Inc()
	ls.log.Info("marked an interrupted turn", zap.String("turn", turnID), zap.String("endedAs", label))
}
