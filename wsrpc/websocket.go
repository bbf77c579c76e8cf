package wsrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Defaults of WSOptions.
const (
	DefaultReadLimit    = 1 << 20          // bytes per message
	DefaultWriteTimeout = 10 * time.Second // per write
	DefaultPongWait     = 60 * time.Second // silence allowed before the read fails
	// DefaultMessageTimeout bounds the reading of one message, from its first frame to its
	// last: 1 MiB at 35 KB/s.
	DefaultMessageTimeout = 30 * time.Second
)

// closeGrace bounds how long CloseWithStatus waits for the remote end to answer the close frame
// (WriteTimeout if that is shorter), and how long after a close frame of ours the socket
// lingers (see wsConn.linger).
const closeGrace = 2 * time.Second

// lingerMaxBytes bounds what a lingering socket reads and discards (the rest of a message
// over the read limit, mostly) before it closes anyway.
const lingerMaxBytes = 8 << 20

// maxPooledReadBuffer is the largest read buffer put back in readBuffers; bigger ones are
// dropped so the pool does not hold on to the memory of the largest messages.
const maxPooledReadBuffer = 64 << 10

// readBuffers holds the *bytes.Buffer that messages are read into. A socket takes one when a
// message arrives and puts it back when it waits for the next, so an idle socket holds none.
var readBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WSOptions configures NewWebSocketConn. Zero fields take the defaults.
type WSOptions struct {
	// ReadLimit is the largest message accepted, in bytes (default 1 MiB). A bigger frame
	// closes the socket with status 1009 (message too big) and fails ReadMessage.
	ReadLimit int64
	// WriteTimeout is the deadline of each write, ping and close frame (default 10 s).
	WriteTimeout time.Duration
	// PongWait is how long the socket may stay silent before ReadMessage fails (default 60 s;
	// negative: no read deadline). Every message and every pong extends it, so the remote end
	// must answer pings sent more often than that (Options.PingInterval, 25 s by default).
	PongWait time.Duration
	// MessageTimeout bounds the time from a message's first frame to its last (default 30 s;
	// negative: none). Pongs do not extend it, so a remote end that starts a fragmented
	// message and then only answers pings is closed with status 1008 and ReadMessage returns
	// ErrMessageTimeout. Its partial bytes count against ReadLimit meanwhile (gorilla's limit
	// applies to the sum of a message's frames).
	MessageTimeout time.Duration
}

// NewWebSocketConn adapts an open gorilla WebSocket to a MessageConn that also implements
// StatusCloser and Pinger. It takes over the socket's read limit, read deadline and pong handler.
//
// Messages are text frames. A binary frame closes the socket with status 1003 and makes
// ReadMessage return ErrBinaryFrame. CloseWithStatus sends the close frame, waits (at most two
// seconds, or WriteTimeout if shorter) for the reader to see the remote end's answer, then
// closes the socket. After a close frame of ours (those statuses, 1009 and the others) that
// the remote end has not answered, closing lingers: see wsConn.Close.
func NewWebSocketConn(c *websocket.Conn, o WSOptions) MessageConn {
	if o.ReadLimit <= 0 {
		o.ReadLimit = DefaultReadLimit
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.PongWait == 0 {
		o.PongWait = DefaultPongWait
	}
	if o.MessageTimeout == 0 {
		o.MessageTimeout = DefaultMessageTimeout
	}
	w := &wsConn{c: c, o: o, readDone: make(chan struct{})}
	w.cork, _ = c.NetConn().(*corkConn) // set by Accept and Dial
	c.SetReadLimit(o.ReadLimit)
	w.extendReadDeadline()
	c.SetPongHandler(func(string) error {
		w.extendReadDeadline()
		return nil
	})
	return w
}

// wsConn is the MessageConn over a gorilla WebSocket. gorilla allows one reader and one writer
// at a time; WriteControl (Ping, close frames) and Close may be used concurrently with both.
type wsConn struct {
	c    *websocket.Conn
	cork *corkConn // the network connection under c, when it can gather writes
	// br is the buffered reader gorilla reads c through, when Accept knows it (then the
	// socket can park between messages: parkRead).
	br  *bufio.Reader
	o   WSOptions
	buf *bytes.Buffer // the last message read, from readBuffers (only the reader touches it)
	// deadline is the read deadline last set by extendReadDeadline (zero: none).
	deadline time.Time
	// msgDeadline is when the message being read must be complete (zero between messages).
	// Only the read goroutine touches it: gorilla runs the pong handler inside reads.
	msgDeadline time.Time
	readDone    chan struct{} // closed when ReadMessage has failed: the read side is over
	doneOnce    sync.Once

	// closeSent is when this end sent its close frame, as 1 + its time since monoBase in
	// nanoseconds (0: not sent), so that the linger's deadline keeps the monotonic clock.
	closeSent atomic.Int64
	// remoteDone: the reader met the remote end's close frame or the end of its stream, so
	// the remote end sends nothing more. Set before readDone is closed.
	remoteDone atomic.Bool
	closeOnce  sync.Once
	lingering  bool // the first Close left the socket to linger; set within closeOnce
	// onPanic reports a panic recovered in linger (set by the Peer; nil: not reported).
	onPanic func(v any)
}

// setPanicReporter implements panicReporter.
func (w *wsConn) setPanicReporter(f func(v any)) { w.onPanic = f }

// extendReadDeadline moves the read deadline PongWait into the future, but never past the
// deadline of a message being read. Without PongWait and no message being read it clears
// the deadline: the last message's must not end an idle socket later.
func (w *wsConn) extendReadDeadline() {
	var d time.Time
	if w.o.PongWait > 0 {
		d = time.Now().Add(w.o.PongWait)
	}
	if !w.msgDeadline.IsZero() && (d.IsZero() || w.msgDeadline.Before(d)) {
		d = w.msgDeadline
	}
	w.deadline = d
	_ = w.c.SetReadDeadline(d)
}

// parkRead implements parker: between messages, with nothing buffered, the socket waits
// for its next bytes in the process's poller instead of in a goroutine (corkConn.park).
// When they come, the goroutine the poller starts reads what is there first: if that is
// only pongs (the answers to the keep-alive pings, most of what an idle socket receives),
// it takes them itself and parks again, since gorilla would read them and then block for
// the next message. Otherwise resume continues with ReadMessage.
func (w *wsConn) parkRead(resume func()) bool {
	if w.br == nil || w.cork == nil || !w.consumePongs() {
		return false
	}
	w.releaseBuf()
	var wake func()
	wake = func() {
		if w.takePongs() && w.cork.park(w.deadline, wake) {
			return
		}
		resume()
	}
	return w.cork.park(w.deadline, wake)
}

// takePongs reads what the socket has (one read: it is readable) and consumes the pongs
// in it (consumePongs). A read error is left for ReadMessage to meet again.
func (w *wsConn) takePongs() bool {
	if _, err := w.br.Peek(1); err != nil {
		return false
	}
	return w.consumePongs()
}

// consumePongs consumes the complete pong frames at the head of the buffer, as gorilla's
// pong handler would (each extends the read deadline), and reports whether the buffer is
// then empty. Only the reader calls it, between messages.
func (w *wsConn) consumePongs() bool {
	for w.br.Buffered() >= 2 {
		h, _ := w.br.Peek(2)
		const (
			fin       = 0x80
			rsv       = 0x70
			opPong    = 0xA
			masked    = 0x80
			maxLength = 125
		)
		n := int(h[1] & 0x7f)
		// A pong from a client: final, no extension bits, masked, a short payload.
		if h[0]&fin == 0 || h[0]&rsv != 0 || h[0]&0x0f != opPong || h[1]&masked == 0 || n > maxLength {
			return false
		}
		size := 2 + 4 + n
		if w.br.Buffered() < size {
			return false // the rest is on its way: gorilla reads it
		}
		_, _ = w.br.Discard(size)
		w.extendReadDeadline()
	}
	return w.br.Buffered() == 0 && w.cork.buffered() == 0
}

// releaseBuf gives the last message's buffer back to the pool: it is no longer used.
func (w *wsConn) releaseBuf() {
	if w.buf != nil {
		if w.buf.Cap() <= maxPooledReadBuffer {
			w.buf.Reset()
			readBuffers.Put(w.buf)
		}
		w.buf = nil
	}
}

// ReadMessage returns the next text message; the slice is reused by the next call.
func (w *wsConn) ReadMessage() ([]byte, error) {
	data, err := w.readMessage()
	if err != nil {
		var ce *websocket.CloseError // gorilla's unexpected EOF is one too (1006)
		if errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			w.remoteDone.Store(true)
		}
		var ne net.Error
		switch {
		case errors.Is(err, websocket.ErrReadLimit): // gorilla has sent the 1009 close frame
			w.markCloseSent()
			err = fmt.Errorf("%w: %w", ErrMessageTooBig, err)
		case !w.msgDeadline.IsZero() && errors.As(err, &ne) && ne.Timeout():
			_ = w.writeClose(websocket.ClosePolicyViolation, "message not completed in time")
			err = fmt.Errorf("%w: %w", ErrMessageTimeout, err)
		}
		w.doneOnce.Do(func() { close(w.readDone) }) // after the close frame: Close looks at both
	}
	return data, err
}

func (w *wsConn) readMessage() ([]byte, error) {
	// The previous message is no longer used: hold no buffer while waiting for the next.
	w.releaseBuf()
	w.msgDeadline = time.Time{}
	mt, r, err := w.c.NextReader()
	if err != nil {
		return nil, err
	}
	if w.o.MessageTimeout > 0 { // the message has started: it must end in time
		w.msgDeadline = time.Now().Add(w.o.MessageTimeout)
		w.extendReadDeadline()
	}
	if mt != websocket.TextMessage {
		_ = w.writeClose(websocket.CloseUnsupportedData, "binary frames are not supported")
		return nil, ErrBinaryFrame
	}
	// A message over the read limit fails here; gorilla has then sent the 1009 close frame.
	w.buf = readBuffers.Get().(*bytes.Buffer)
	if _, err := w.buf.ReadFrom(r); err != nil {
		return nil, err
	}
	w.msgDeadline = time.Time{}
	w.extendReadDeadline()
	if !utf8.Valid(w.buf.Bytes()) {
		_ = w.writeClose(websocket.CloseInvalidFramePayloadData, "text message is not valid UTF-8")
		return nil, ErrInvalidUTF8
	}
	return w.buf.Bytes(), nil
}

// WriteMessage writes one text frame within WriteTimeout.
func (w *wsConn) WriteMessage(data []byte) error {
	if err := w.c.SetWriteDeadline(time.Now().Add(w.o.WriteTimeout)); err != nil {
		return err
	}
	err := w.c.WriteMessage(websocket.TextMessage, data)
	if errors.Is(err, websocket.ErrCloseSent) && w.closeSent.Load() == 0 {
		// Not our close frame: the reader has just answered the remote end's, and ends with
		// its status.
		return fmt.Errorf("%w: %w", errRemoteClosing, err)
	}
	return err
}

// startBatch and endBatch bracket the writes of several messages, which then go out in one
// system call when the socket was made by Accept or Dial (see batcher).
func (w *wsConn) startBatch() {
	if w.cork != nil {
		w.cork.cork()
	}
}

func (w *wsConn) endBatch() error {
	if w.cork != nil {
		return w.cork.uncork()
	}
	return nil
}

// Ping sends a ping control frame within WriteTimeout.
func (w *wsConn) Ping() error {
	err := w.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(w.o.WriteTimeout))
	if errors.Is(err, websocket.ErrCloseSent) {
		// A close frame is out, this end's or the answer to the remote end's: whoever sent it
		// ends the peer with the cause (an unfinished message's timeout), which a ping that
		// met it must not take the place of (a weak cause, as Close says).
		return fmt.Errorf("%w: %w", errRemoteClosing, err)
	}
	return err
}

// writeClose sends a close frame; the reason is cut to fit a control frame.
func (w *wsConn) writeClose(code int, reason string) error {
	const maxReason = 123 // 125 bytes of control payload minus the 2-byte code
	if len(reason) > maxReason {
		reason = reason[:maxReason]
		for !utf8.ValidString(reason) { // cut on a rune boundary: the remote end checks UTF-8
			reason = reason[:len(reason)-1]
		}
	}
	msg := websocket.FormatCloseMessage(code, reason)
	err := w.c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(w.o.WriteTimeout))
	if err == nil {
		w.markCloseSent()
	}
	return err
}

// monoBase is the origin of wsConn.closeSent.
var monoBase = time.Now()

// markCloseSent records that this end has sent its close frame (the first time counts).
func (w *wsConn) markCloseSent() {
	w.closeSent.CompareAndSwap(0, 1+int64(time.Since(monoBase)))
}

// CloseWithStatus sends a close frame with code and reason, waits briefly until the reader has
// seen the remote end's close frame (or failed), then closes the socket.
func (w *wsConn) CloseWithStatus(code int, reason string) error {
	err := w.writeClose(code, reason)
	if err == nil {
		// Wake a reader blocked for longer than the grace period; it then sees the answer or times out.
		grace := min(closeGrace, w.o.WriteTimeout)
		_ = w.c.SetReadDeadline(time.Now().Add(grace))
		t := time.NewTimer(grace)
		select {
		case <-w.readDone:
		case <-t.C:
		}
		t.Stop()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the socket (without a close frame of its own). When this end has sent a
// close frame and the reader has ended without the remote end's answer, the remote end may
// still be sending (the rest of a message over the read limit, say): closing with its bytes
// unread would make the system reset the connection, and the remote end could lose the close
// frame (a browser then reports 1006). Close then lingers instead, in a goroutine of its own
// (linger), and returns at once; a write still blocked meanwhile (it may carry the close
// frame) returns when the linger ends, within closeGrace. Later calls close the socket if
// the first did not linger.
func (w *wsConn) Close() error {
	first := false
	var err error
	w.closeOnce.Do(func() {
		first = true
		if until, ok := w.lingerUntil(); ok {
			w.lingering = true
			go w.linger(until)
			return
		}
		err = w.c.Close()
	})
	if first || w.lingering {
		return err
	}
	return w.c.Close()
}

// lingerUntil tells whether closing should linger, and until when: closeGrace after our close
// frame, when the reader has ended (nobody else may read) without meeting the remote end's.
func (w *wsConn) lingerUntil() (time.Time, bool) {
	sent := w.closeSent.Load()
	if sent == 0 {
		return time.Time{}, false
	}
	select {
	case <-w.readDone:
	default: // the reader still reads, or waits for bytes: it alone may read
		return time.Time{}, false
	}
	if w.remoteDone.Load() {
		return time.Time{}, false
	}
	until := monoBase.Add(time.Duration(sent-1) + closeGrace)
	return until, time.Now().Before(until)
}

// linger is a lingering close (as HTTP servers do after an error response): it shuts down
// the sending side (the remote end reads the close frame, then the end of the stream), reads
// and discards what the remote end still sends until it closes its side, until (closeGrace
// after our close frame) or lingerMaxBytes, then closes the socket. Only linger reads the
// socket now; nothing waits for it, and it ends within closeGrace whatever the remote end does.
func (w *wsConn) linger(until time.Time) {
	defer func() {
		if v := recover(); v != nil && w.onPanic != nil {
			w.onPanic(v)
		}
		_ = w.c.Close()
	}()
	nc := w.c.NetConn()
	if w.cork != nil {
		w.cork.closeWrite()
	} else if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite() // gorilla writes nothing after a close frame
	}
	if err := nc.SetReadDeadline(until); err != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, nc, lingerMaxBytes)
}
