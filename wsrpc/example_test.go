package wsrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/wsrpc"
)

// Two peers over an in-memory pipe: one answers "greet", the other calls it.
func Example() {
	serverConn, clientConn := wsrpc.Pipe()

	server := wsrpc.NewPeer(serverConn, wsrpc.Options{})
	server.Handle("greet", func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var p struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name == "" {
			return nil, wsrpc.NewError(wsrpc.CodeInvalidParams, "params: want {name}")
		}
		return "hello, " + p.Name, nil
	})
	server.Start()

	client := wsrpc.NewPeer(clientConn, wsrpc.Options{})
	client.Start()

	ctx := context.Background()
	var greeting string
	err := client.Call(ctx, "greet", map[string]string{"name": "page"}, &greeting)
	fmt.Println(greeting, err)

	err = client.Call(ctx, "greet", map[string]string{}, nil)
	fmt.Println(err)

	err = client.Call(ctx, "missing", nil, nil)
	fmt.Println(errors.Is(err, wsrpc.NewError(wsrpc.CodeMethodNotFound, "")))

	client.Close(nil)
	fmt.Println(server.Wait())
	// Output:
	// hello, page <nil>
	// wsrpc: call "greet": params: want {name} (code -32602)
	// true
	// wsrpc: read: EOF
}

// A WebSocket server: the HTTP handler upgrades, runs one peer for the life of the socket, and
// the server ends it with status 1001 when it shuts down.
func ExampleNewWebSocketConn() {
	peers := make(chan *wsrpc.Peer, 1)
	var upgrader websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		peer := wsrpc.NewPeer(wsrpc.NewWebSocketConn(ws, wsrpc.WSOptions{}), wsrpc.Options{})
		peer.Handle("ping", func(ctx context.Context, req *wsrpc.Request) (any, error) {
			return struct{}{}, nil
		})
		peer.Start()
		peers <- peer
		peer.Wait() // the handler blocks for the life of the socket
	}))
	defer srv.Close()

	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	server := <-peers

	ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	_, reply, _ := ws.ReadMessage()
	fmt.Println(string(reply))

	server.CloseWithStatus(websocket.CloseGoingAway, "server shutting down")
	_, _, err = ws.ReadMessage()
	fmt.Println(err)
	fmt.Println(server.Wait())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// websocket: close 1001 (going away): server shutting down
	// wsrpc: connection closed with status 1001: server shutting down
}
