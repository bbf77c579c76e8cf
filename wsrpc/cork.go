package wsrpc

import (
	"bufio"
	"net"
	"net/http"
	"sync"
)

// maxCork is the most a corked connection holds back; a batch beyond it is written in parts.
const maxCork = 64 << 10

// corkBuffers hold the frames of a batch while it is being gathered.
var corkBuffers = sync.Pool{New: func() any { return new([]byte) }}

// corkConn is the network connection under a WebSocket. Between cork and uncork its writes are
// gathered and written as one, so a batch of messages costs one system call instead of one per
// frame. gorilla writes each frame under its own write lock, so the gathered bytes always end
// on a frame boundary. Close writes them first, so a close frame written by another goroutine
// (gorilla's answer to a protocol error) is not lost, unless a write is under way: Close never
// waits, since it is what unblocks a write to a peer that stopped reading.
type corkConn struct {
	net.Conn
	mu     sync.Mutex
	corked bool
	buf    *[]byte // from corkBuffers while corked
}

// cork starts gathering writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.buf = corkBuffers.Get().(*[]byte)
	c.mu.Unlock()
}

// uncork writes what was gathered and stops gathering.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.flushLocked()
	c.corked = false
	if cap(*c.buf) <= maxCork {
		*c.buf = (*c.buf)[:0]
		corkBuffers.Put(c.buf)
	}
	c.buf = nil
	return err
}

// flushLocked writes the gathered bytes; c.mu is held.
func (c *corkConn) flushLocked() error {
	if !c.corked || len(*c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(*c.buf)
	*c.buf = (*c.buf)[:0]
	return err
}

// Write gathers p while corked, else writes it.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.corked {
		c.mu.Unlock()
		return c.Conn.Write(p)
	}
	defer c.mu.Unlock()
	if len(*c.buf)+len(p) > maxCork {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > maxCork {
			return c.Conn.Write(p)
		}
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// Close writes what was gathered when no write is under way, then closes the connection.
func (c *corkConn) Close() error {
	if c.mu.TryLock() {
		_ = c.flushLocked()
		c.mu.Unlock()
	}
	return c.Conn.Close()
}

// corkingWriter is an http.ResponseWriter whose Hijack returns a corkConn, so that gorilla's
// Upgrade builds the WebSocket on top of one.
type corkingWriter struct {
	http.ResponseWriter
}

func (w corkingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &corkConn{Conn: c}, brw, nil
}

// Unwrap lets http.ResponseController reach the original writer.
func (w corkingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
