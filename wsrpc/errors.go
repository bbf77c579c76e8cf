package wsrpc

import (
	"encoding/json"
	"errors"
	"strconv"
)

// JSON-RPC 2.0 error codes: the five of the specification, then the ones this package sends
// itself from the server-defined range -32000…-32099.
const (
	CodeParseError     int64 = -32700 // the message is not valid JSON
	CodeInvalidRequest int64 = -32600 // valid JSON but not a JSON-RPC request (batches included)
	CodeMethodNotFound int64 = -32601 // no handler for the method
	CodeInvalidParams  int64 = -32602 // params do not fit the method
	CodeInternalError  int64 = -32603 // the handler failed or panicked; the detail is only logged
	CodeBusy           int64 = -32000 // more than Options.MaxHandlers requests are running
	CodeRateLimited    int64 = -32029 // the peer sends faster than Options.RateLimit
)

// Error is a JSON-RPC 2.0 error object. A handler that returns an *Error (possibly wrapped) has
// it sent as is; Call returns the peer's error responses as *Error (use errors.As).
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// NewError returns an *Error with the given code and message and no data.
func NewError(code int64, msg string) *Error {
	return &Error{Code: code, Message: msg}
}

// Error returns the message followed by the code, e.g. "method not found (code -32601)".
func (e *Error) Error() string {
	return e.Message + " (code " + strconv.FormatInt(e.Code, 10) + ")"
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, wsrpc.NewError(wsrpc.CodeMethodNotFound, "")) matches any message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// ErrClosed is wrapped by every error returned because the peer has ended: calls waiting for a
// reply when the connection goes away, and calls or notifications made afterwards. The error also
// wraps the cause (see Peer.Wait), e.g. "wsrpc: connection closed: wsrpc: read: EOF".
var ErrClosed = errors.New("wsrpc: connection closed")

// ErrSlowPeer is the cause when the outgoing queue (Options.SendQueue) overflowed because the
// remote end does not read fast enough; the peer is dropped and may reconnect.
var ErrSlowPeer = errors.New("wsrpc: peer too slow: send queue full")

// ErrRateLimited is the cause when the remote end kept sending above Options.RateLimit after its
// messages were refused; the peer is closed with WebSocket status 1008 (policy violation).
var ErrRateLimited = errors.New("wsrpc: peer exceeded the message rate limit")

// ErrMessageTooBig is returned by a WebSocket MessageConn that received a message over its read
// limit; it has already closed the socket with status 1009 (message too big).
var ErrMessageTooBig = errors.New("wsrpc: message too big")

// ErrMessageTimeout is returned by a WebSocket MessageConn whose remote end started a message
// and did not finish it within WSOptions.MessageTimeout; it has closed the socket with status
// 1008 (policy violation).
var ErrMessageTimeout = errors.New("wsrpc: message not completed in time")

// ErrBinaryFrame is returned by a WebSocket MessageConn that received a binary frame; it has
// already closed the socket with status 1003 (unsupported data).
var ErrBinaryFrame = errors.New("wsrpc: binary frames are not supported")

// ErrInvalidUTF8 is returned by a WebSocket MessageConn that received a text message that is not
// valid UTF-8 (RFC 6455 section 8.1); it has already closed the socket with status 1007 (invalid
// frame payload data), so nothing of that message is echoed back in a text frame.
var ErrInvalidUTF8 = errors.New("wsrpc: text message is not valid UTF-8")
