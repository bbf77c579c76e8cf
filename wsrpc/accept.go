package wsrpc

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// AcceptOptions configures Accept.
type AcceptOptions struct {
	// Subprotocols the server accepts when the client offers them (for example "mcp").
	Subprotocols []string
	// ReadBufferSize and WriteBufferSize size gorilla's I/O buffers (default 4 KiB each;
	// smaller buffers mean less memory per idle socket).
	ReadBufferSize, WriteBufferSize int
	// WS configures the returned connection.
	WS WSOptions
}

// Accept upgrades an HTTP request to a WebSocket connection. The caller checks the Origin
// before calling it; Accept itself accepts any origin. On failure gorilla has already
// written an HTTP error response.
func Accept(w http.ResponseWriter, r *http.Request, o AcceptOptions) (MessageConn, error) {
	up := websocket.Upgrader{
		ReadBufferSize:    o.ReadBufferSize,
		WriteBufferSize:   o.WriteBufferSize,
		Subprotocols:      o.Subprotocols,
		CheckOrigin:       func(*http.Request) bool { return true },
		EnableCompression: false,
		HandshakeTimeout:  10 * time.Second,
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return nil, err
	}
	return NewWebSocketConn(c, o.WS), nil
}

// Dial opens a WebSocket client connection (used by tests, the load generator and the
// terminal tools). header carries Origin and the like.
func Dial(ctx context.Context, url string, header http.Header, o WSOptions) (MessageConn, *http.Response, error) {
	d := websocket.Dialer{
		HandshakeTimeout: 10 * time.Second,
		Subprotocols:     []string{"mcp"},
	}
	c, resp, err := d.DialContext(ctx, url, header)
	if err != nil {
		return nil, resp, err
	}
	return NewWebSocketConn(c, o), resp, nil
}
