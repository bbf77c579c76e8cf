package agentsvc

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
