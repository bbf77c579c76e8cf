package wsrpc

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxCork is the most a corked connection holds back; a batch beyond it is written in parts.
const maxCork = 64 << 10

// corkBuffers hold the frames of a batch while it is being gathered.
var corkBuffers = sync.Pool{New: func() any { return new([]byte) }}

// readAheadSize is how much one read takes from the socket when the reader asks for less
// (gorilla reads frames through a small buffer: 512 bytes on a page socket). A page that
// answers a turn's calls sends a burst of frames; read through 512 bytes, half the reads
// came back full (bench/PERFORMANCE.md). The bytes beyond what was asked wait in a buffer
// from readAheadBuffers, which goes back once they are read: an idle socket holds none.
const readAheadSize = 16 << 10

var readAheadBuffers = sync.Pool{New: func() any { b := make([]byte, readAheadSize); return &b }}

// corkConn is the network connection under a WebSocket. Between cork and uncork its writes are
// gathered and written as one, so a batch of messages costs one system call instead of one per
// frame. gorilla writes each frame under its own write lock, so the gathered bytes always end
// on a frame boundary. Close writes them first, so a close frame written by another goroutine
// (gorilla's answer to a protocol error) is not lost, unless a write is under way: Close never
// waits, since it is what unblocks a write to a peer that stopped reading.
//
// An idle socket can also wait for its next message without a goroutine (park): the
// process's epoll instance (park_linux.go) watches it and a new goroutine reads once data
// has come, the read deadline has passed or the socket was closed.
//
// Lock order: mu and pmu are never held together.
type corkConn struct {
	net.Conn
	mu     sync.Mutex
	corked bool
	buf    *[]byte // from corkBuffers while corked

	// ahead holds bytes read from the socket and not yet by the reader (ahead[aheadOff:]),
	// from readAheadBuffers; nil when there are none. Only the reading goroutine touches
	// them (a parked socket has none: see buffered).
	ahead    *[]byte
	aheadOff int

	pmu     sync.Mutex
	closed  bool
	waiting *parked // the park in progress, nil when none
	token   uint64  // the poller's name for c; 0 until c first parks
	fd      int     // the descriptor, once token is set
	armed   bool    // the descriptor is in the epoll instance
}

// parked is one wait of an idle socket for its next message.
type parked struct {
	resume func()
	timer  *time.Timer // the read deadline, if any
}

// park arranges for resume to run in a new goroutine once c is readable or hung up, its
// read deadline (zero: none) has passed, or c is closed, and reports true. It reports false
// when c cannot wait that way (closed, or no poller on this platform); the caller then
// reads as usual. Only the reading goroutine parks, and only between messages.
func (c *corkConn) park(deadline time.Time, resume func()) bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.closed || c.waiting != nil {
		return false
	}
	if err := c.arm(); err != nil {
		return false
	}
	w := &parked{resume: resume}
	c.waiting = w // before a wake can look: it waits for pmu
	if !deadline.IsZero() {
		w.timer = time.AfterFunc(time.Until(deadline), func() { c.wake(w) })
	}
	return true
}

// wake ends the park in progress (only if it is w, when w is not nil) and resumes its
// reader in a new goroutine. A readiness event that arrives late (its park already ended
// by the deadline) may wake a later park early: its reader then blocks in Read as a
// socket without a poller does.
func (c *corkConn) wake(w *parked) {
	c.pmu.Lock()
	cur := c.waiting
	if cur == nil || (w != nil && cur != w) {
		c.pmu.Unlock()
		return
	}
	c.waiting = nil
	c.pmu.Unlock()
	if cur.timer != nil {
		cur.timer.Stop()
	}
	go cur.resume()
}

// Read reads through the read-ahead buffer: what is left in it first, else one read of up
// to readAheadSize from the socket when p is smaller than that.
func (c *corkConn) Read(p []byte) (int, error) {
	if c.ahead != nil {
		n := copy(p, (*c.ahead)[c.aheadOff:])
		c.aheadOff += n
		if c.aheadOff == len(*c.ahead) {
			c.releaseAhead()
		}
		return n, nil
	}
	if len(p) >= readAheadSize {
		return c.Conn.Read(p)
	}
	b := readAheadBuffers.Get().(*[]byte)
	n, err := c.Conn.Read((*b)[:readAheadSize])
	if n <= len(p) { // all of it fits, or nothing came (an error)
		n = copy(p, (*b)[:n])
		readAheadBuffers.Put(b)
		return n, err
	}
	// More than p holds: the rest waits. (A net.Conn returns no bytes with an error; one
	// that did would show its error again at the next read of the socket.)
	copy(p, (*b)[:len(p)])
	*b = (*b)[:n]
	c.ahead, c.aheadOff = b, len(p)
	return len(p), nil
}

// buffered is how many bytes were read from the socket ahead of the reader. A reader parks
// only when it has none (they would never make the socket readable again).
func (c *corkConn) buffered() int {
	if c.ahead == nil {
		return 0
	}
	return len(*c.ahead) - c.aheadOff
}

// releaseAhead returns the read-ahead buffer to the pool.
func (c *corkConn) releaseAhead() {
	*c.ahead = (*c.ahead)[:readAheadSize]
	readAheadBuffers.Put(c.ahead)
	c.ahead, c.aheadOff = nil, 0
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

// closeWrite writes what was gathered and shuts down the sending side of the connection
// (TCP FIN), when no write is under way (one that is still needs it: then it does nothing).
// Called after the close frame, when gorilla writes nothing more, so no byte is lost.
func (c *corkConn) closeWrite() {
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if c.flushLocked() != nil {
		return
	}
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// Close writes what was gathered when no write is under way, then closes the connection;
// a parked reader is resumed and finds it closed.
func (c *corkConn) Close() error {
	if c.mu.TryLock() {
		_ = c.flushLocked()
		c.mu.Unlock()
	}
	c.pmu.Lock()
	c.closed = true
	c.disarm()
	w := c.waiting
	c.waiting = nil
	c.pmu.Unlock()
	err := c.Conn.Close()
	if w != nil {
		if w.timer != nil {
			w.timer.Stop()
		}
		go w.resume()
	}
	return err
}

// corkingWriter is an http.ResponseWriter whose Hijack returns a corkConn, so that gorilla's
// Upgrade builds the WebSocket on top of one.
type corkingWriter struct {
	http.ResponseWriter
	// reader, when not nil, receives the bufio.Reader gorilla will read through: net/http's,
	// or when readBuffer > 0 a new one of that size (more than 256 bytes: gorilla reuses
	// only a reader bigger than that).
	reader     **bufio.Reader
	readBuffer int
}

func (w corkingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	cc := &corkConn{Conn: c}
	if w.reader != nil && brw.Reader.Buffered() == 0 { // else gorilla refuses the upgrade
		// gorilla reads through the hijacked reader (resetting it onto cc) when
		// Upgrader.ReadBufferSize is 0; knowing it lets the socket see whether bytes are
		// buffered, to park when none are.
		if w.readBuffer > 0 { // a reader of our size instead of net/http's 4 KiB one
			brw = bufio.NewReadWriter(bufio.NewReaderSize(cc, w.readBuffer), brw.Writer)
		}
		*w.reader = brw.Reader
	}
	return cc, brw, nil
}

// Unwrap lets http.ResponseController reach the original writer.
func (w corkingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
