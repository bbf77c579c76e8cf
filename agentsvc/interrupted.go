package agentsvc

// turnTakenOver is byomcp_turns_total's label for a turn that another replica was running
// when this replica took its session over, because that replica stopped renewing its claim
// (it died, or lost the store) while a page here served the turn (proxy.takeOver). The turn
// is closed here as interrupted (turn_end {stopReason: error, interrupted: true}) and
// counted once, here, under this label instead of turnInterrupted: the replica that ran it
// could not count it.
const turnTakenOver = "taken_over"

// turnInterrupted is byomcp_turns_total's label for a turn a crash, a replica's death or a
// store failure cut short (its turn_end has stopReason error and interrupted: true).
const turnInterrupted = "interrupted"
