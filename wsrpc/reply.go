package wsrpc

// Reply is a handler result with work to do right after the response is queued: anything
// After sends is seen by the peer after the response (for example events that must follow
// a result). After runs in the handler's goroutine, only when the result was queued (not when
// the handler returned an error or the peer has ended); a panic in it is recovered and logged.
type Reply struct {
	Result any
	After  func()
}

// ReplyThen returns a handler result that sends result, then runs after.
func ReplyThen(result any, after func()) *Reply {
	return &Reply{Result: result, After: after}
}
