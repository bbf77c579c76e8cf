package wsrpc

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// writeBuffers are the write buffers of the accepted sockets (see AcceptOptions).
var writeBuffers sync.Pool

// AcceptOptions configures Accept.
type AcceptOptions struct {
	// Subprotocols the server accepts when the client offers them (for example "mcp").
	Subprotocols []string
	// ReadBufferSize sizes the socket's read buffer. 0 reads through the 4 KiB buffer
	// net/http allocated for the request: right when the HTTP handler blocks for the life of
	// the socket, since net/http then keeps that buffer anyway. A handler that returns after
	// Accept frees it and can choose a smaller one (at least 256 bytes: a control frame must
	// fit; more than 256 lets an idle socket wait without a goroutine, see Peer); bigger
	// messages are read straight into their own buffer.
	ReadBufferSize int
	// WriteBufferSize sizes the write buffers (default 4 KiB). They come from a pool shared
	// by every socket and are held only while a message is written, so an idle socket holds
	// none.
	WriteBufferSize int
	// WS configures the returned connection.
	WS WSOptions
}

// Accept upgrades an HTTP request to a WebSocket connection. The caller checks the Origin
// before calling it; Accept itself accepts any origin. On failure gorilla has already
// written an HTTP error response.
func Accept(w http.ResponseWriter, r *http.Request, o AcceptOptions) (MessageConn, error) {
	var br *bufio.Reader
	cw := corkingWriter{ResponseWriter: w}
	readBuffer := o.ReadBufferSize
	if readBuffer == 0 || readBuffer > minReusedReader {
		cw.reader, cw.readBuffer, readBuffer = &br, readBuffer, 0 // gorilla reads through br
	}
	up := websocket.Upgrader{
		ReadBufferSize:    readBuffer,
		WriteBufferSize:   o.WriteBufferSize,
		Subprotocols:      o.Subprotocols,
		CheckOrigin:       func(*http.Request) bool { return true },
		EnableCompression: false,
		HandshakeTimeout:  10 * time.Second,
		WriteBufferPool:   &writeBuffers,
	}
	c, err := up.Upgrade(cw, r, nil)
	if err != nil {
		return nil, err
	}
	ws := NewWebSocketConn(c, o.WS).(*wsConn)
	ws.br = br
	return ws, nil
}

// minReusedReader: gorilla reads through the hijacked bufio.Reader only when it is bigger.
const minReusedReader = 256

// Dial opens a WebSocket client connection (used by tests, the load generator and the
// terminal tools). header carries Origin and the like.
func Dial(ctx context.Context, url string, header http.Header, o WSOptions) (MessageConn, *http.Response, error) {
	d := websocket.Dialer{
		HandshakeTimeout: 10 * time.Second,
		Subprotocols:     []string{"mcp"},
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &corkConn{Conn: c}, nil
		},
	}
	c, resp, err := d.DialContext(ctx, url, header)
	if err != nil {
		return nil, resp, err
	}
	return NewWebSocketConn(c, o), resp, nil
}
