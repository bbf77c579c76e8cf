package wsrpc

import (
	"bytes"
	"io"
	"net"
	"sync"
)

// MessageConn carries whole messages (for a WebSocket, one text frame each).
//
// One goroutine calls ReadMessage and one calls WriteMessage; Close may be called from any
// goroutine, more than once, and must make a blocked ReadMessage or WriteMessage return.
// The slice returned by ReadMessage is only valid until the next ReadMessage call (so an
// implementation may reuse its buffer); WriteMessage must not keep data after it returns.
type MessageConn interface {
	ReadMessage() ([]byte, error)
	WriteMessage(data []byte) error
	Close() error
}

// StatusCloser is implemented by a MessageConn that can tell the remote end why it is closed,
// with a WebSocket close status: 1001 going away (shutdown), 1003 unsupported data, 1008 policy
// violation, 1009 message too big, 1011 internal error. It closes the connection.
type StatusCloser interface {
	CloseWithStatus(code int, reason string) error
}

// Pinger is implemented by a MessageConn that can send a keep-alive ping (a WebSocket ping
// control frame). The answer is handled by the connection itself (a pong extends its read
// deadline). Ping may be called concurrently with WriteMessage.
type Pinger interface {
	Ping() error
}

// panicReporter is implemented by a MessageConn that runs a goroutine of its own (a
// WebSocket's lingering close): NewPeer gives it the function that reports a panic
// recovered there (logged with its stack, and Options.OnPanic with where "linger").
type panicReporter interface {
	setPanicReporter(report func(v any))
}

// batcher is implemented by a MessageConn that can put several messages into one write to the
// network: WriteMessage calls between startBatch and endBatch may hold their bytes back until
// endBatch, which must be called after every startBatch. Only the writing goroutine calls them.
type batcher interface {
	startBatch()
	endBatch() error
}

// Pipe returns the two ends of an in-memory, synchronous MessageConn: each WriteMessage waits
// until the other end reads the message (so a peer that does not read fills the writer's queue).
// It uses only channels, so it works inside a testing/synctest bubble when created there.
//
// After Close, ReadMessage and WriteMessage on that end return net.ErrClosed; on the other end
// ReadMessage returns io.EOF and WriteMessage io.ErrClosedPipe.
func Pipe() (MessageConn, MessageConn) {
	ab, ba := make(chan []byte), make(chan []byte)
	aDone, bDone := make(chan struct{}), make(chan struct{})
	a := &pipeConn{rx: ba, tx: ab, local: aDone, remote: bDone}
	b := &pipeConn{rx: ab, tx: ba, local: bDone, remote: aDone}
	return a, b
}

// pipeConn is one end of Pipe.
type pipeConn struct {
	rx     <-chan []byte
	tx     chan<- []byte
	local  chan struct{} // closed by this end's Close
	remote chan struct{} // closed by the other end's Close
	once   sync.Once
}

// ReadMessage returns the next message written by the other end.
func (p *pipeConn) ReadMessage() ([]byte, error) {
	select {
	case <-p.local:
		return nil, net.ErrClosed
	default:
	}
	select {
	case b := <-p.rx:
		return b, nil
	case <-p.local:
		return nil, net.ErrClosed
	case <-p.remote:
		return nil, io.EOF
	}
}

// WriteMessage hands a copy of data to the other end's ReadMessage.
func (p *pipeConn) WriteMessage(data []byte) error {
	select {
	case <-p.local:
		return net.ErrClosed
	case <-p.remote:
		return io.ErrClosedPipe
	default:
	}
	select {
	case p.tx <- bytes.Clone(data):
		return nil
	case <-p.local:
		return net.ErrClosed
	case <-p.remote:
		return io.ErrClosedPipe
	}
}

// Close closes this end; the other end sees io.EOF.
func (p *pipeConn) Close() error {
	p.once.Do(func() { close(p.local) })
	return nil
}
