// Package wsrpc is a bidirectional JSON-RPC 2.0 peer over a message connection: both ends call
// and answer each other. It is the only package that knows gorilla/websocket; it knows no MCP.
//
// A MessageConn carries whole messages: NewWebSocketConn adapts a WebSocket (text frames, read
// limit, write deadlines, ping/pong), Pipe connects two peers in memory for tests. A Peer reads
// in one goroutine (Start's, or the caller of Serve) and writes in one that runs only while
// messages are queued (see the rules on Peer). Over a socket of Accept on Linux the reading
// goroutine, too, runs only while a message is read: an idle socket waits in the process's
// one epoll instance (park_linux.go), so it holds no goroutine at all when served with Run:
//
//	peer := wsrpc.NewPeer(wsrpc.NewWebSocketConn(ws, wsrpc.WSOptions{}), wsrpc.Options{Logger: log})
//	peer.Handle("ping", func(ctx context.Context, req *wsrpc.Request) (any, error) { return struct{}{}, nil })
//	peer.Start() // or, in an HTTP handler that owns the socket: cause := peer.Serve()
//	             // or, with nothing waiting for its end: peer.Run(func(cause error) { ... })
//	err := peer.Call(ctx, "tools/list", params, &result)
//	...
//	peer.CloseWithStatus(1001, "server shutting down") // or peer.Close(cause)
//	cause := peer.Wait()
//
// Both ends choose their own request ids; a response is matched only against the receiver's
// own pending calls. A Call whose ctx ends sends notifications/cancelled {requestId, reason},
// and an incoming notifications/cancelled cancels the ctx of the matching request's handler.
// Malformed input is answered as the specification says (-32700, -32600 with a null id, and
// -32600 for batches, which are not supported) and never ends the peer.
package wsrpc
