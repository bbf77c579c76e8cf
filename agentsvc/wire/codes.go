package wire

import "github.com/byomcp/byomcp/wsrpc"

// JSON-RPC error codes a page may receive, listed in docs/protocol.md: the specification's, the
// ones the JSON-RPC peer sends itself (wsrpc), and the agent's own (-32000…-32099).
const (
	CodeParseError     = wsrpc.CodeParseError     // the message is not valid JSON
	CodeInvalidRequest = wsrpc.CodeInvalidRequest // not a JSON-RPC request (batches included)
	CodeMethodNotFound = wsrpc.CodeMethodNotFound // no such method
	CodeInvalidParams  = wsrpc.CodeInvalidParams  // params do not fit the method
	CodeInternalError  = wsrpc.CodeInternalError  // the agent failed; the detail is only logged
	CodeHandlersBusy   = wsrpc.CodeBusy           // too many requests of this socket running at once
	CodeRateLimited    = wsrpc.CodeRateLimited    // too many messages from this socket

	CodeTurnInProgress  = -32001 // a turn is already running in this session
	CodeSessionNotFound = -32002 // unknown session id, or one created by another origin
	CodeTextTooLong     = -32004 // agent/chat text over the limit, or empty
	CodeNoSession       = -32005 // agent/chat before agent/session
	CodeNoTurn          = -32007 // agent/cancel with no matching running turn
	CodeStoreDown       = -32010 // the session store does not answer: nothing can be saved now
	CodeBusy            = -32030 // too many turns running from this client, or in all
	CodeTooManySessions = -32031 // this client creates sessions too fast
	CodeCancelledEarly  = -32032 // the request was cancelled before it started
	CodeOverBudget      = -32033 // the site's token budget (per conversation per hour, or per day) is used up
)

// WebSocket close codes of the agent's own (the private range of RFC 6455), listed in the
// docs/protocol.md with the standard ones it uses.
const (
	// CloseResume: the socket's session is served elsewhere now (another replica claimed it
	// while this socket's request was on its way, or the store lost its state). The page
	// reconnects and resumes by lastSeq, as after any drop; it is not an error to show.
	CloseResume = 4000
)

// The agent's errors with fixed messages, as the page receives them.
var (
	ErrTurnInProgress = wsrpc.NewError(CodeTurnInProgress, "a turn is already running in this session")
	// ErrSwitchDuringTurn refuses agent/session for another session while a turn the socket
	// started still runs.
	ErrSwitchDuringTurn = wsrpc.NewError(CodeTurnInProgress, "a turn this socket started is still running: cancel it or wait for its end before changing sessions")
	ErrSessionNotFound  = wsrpc.NewError(CodeSessionNotFound, "session not found")
	ErrNoSession        = wsrpc.NewError(CodeNoSession, "call agent/session first")
	ErrNoTurn           = wsrpc.NewError(CodeNoTurn, "no running turn to cancel")
	ErrStoreDown        = wsrpc.NewError(CodeStoreDown, "the conversation could not be saved: the session store is unavailable; try again in a moment")
	ErrClientBusy       = wsrpc.NewError(CodeBusy, "too many turns are running from your address; try again when one has ended")
	ErrServerBusy       = wsrpc.NewError(CodeBusy, "the agent is busy: too many turns are running; try again in a moment")
	ErrTooManySessions  = wsrpc.NewError(CodeTooManySessions, "too many new conversations from your address; try again in a minute")
	ErrCancelledEarly   = wsrpc.NewError(CodeCancelledEarly, "the request was cancelled before it started")
	ErrShuttingDown     = wsrpc.NewError(CodeBusy, "the agent is shutting down: try again in a moment")
)
