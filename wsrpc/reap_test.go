package wsrpc

import (
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/wsrpc/wsrpctest"
	"github.com/gorilla/websocket"
)

// Sockets whose remote end falls silent behind a frozen proxy (no byte either way, nothing
// closed) are closed by the server while they are parked (no goroutine): the keep-alive
// pings go unanswered, and the read deadline (PongWait after the last frame) ends each one
// with a read timeout and closes its TCP connection. Twenty at once, as behind one NAT.
// The wait is bounded generously (testTimeout), not timed: what is asserted is that every
// socket closed, why, and that the proxy saw the server's side close.
func TestFrozenProxyReapsParkedSockets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the idle-socket poller is Linux's epoll")
	}
	const (
		n            = 20
		pingInterval = 200 * time.Millisecond
		pongWait     = 500 * time.Millisecond
	)
	url, peers, done := acceptServer(t,
		AcceptOptions{ReadBufferSize: 512, WS: WSOptions{PongWait: pongWait}},
		Options{PingInterval: pingInterval})
	fp := wsrpctest.NewFrozenProxy(t, strings.TrimPrefix(url, "ws://"))
	servers := make([]*Peer, n)
	pongs := make(chan struct{}, 1024)
	for i := range servers {
		c := dial(t, "ws://"+fp.Addr()+"/")
		c.SetPingHandler(func(data string) error { // gorilla's own answer, counted
			select {
			case pongs <- struct{}{}:
			default:
			}
			return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		})
		go func() { // reads, so that pings are answered, as a browser does
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
		servers[i] = recvPeer(t, peers)
	}
	// Keep-alive rounds through parked sockets, longer than the pong wait: the answered
	// pings keep every socket open.
	eventually(t, "every socket parked", func() bool { return readingGoroutines(t) == 0 })
	for range 3 * n {
		select {
		case <-pongs:
		case <-time.After(testTimeout):
			t.Fatal("the server sent no pings")
		}
	}
	time.Sleep(pongWait)
	for _, s := range servers {
		select {
		case <-s.Done():
			t.Fatalf("a server peer ended before the freeze: %v", s.Wait())
		default:
		}
	}
	if got := readingGoroutines(t); got != 0 {
		t.Errorf("before the freeze: %d reading goroutines, want 0 (parked)", got)
	}

	fp.Freeze()
	at := time.Now()
	for range n {
		select {
		case err := <-done:
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("got %v, want a read timeout", err)
			}
		case <-time.After(testTimeout):
			t.Fatalf("sockets still open %v after the freeze (ping %v, pong wait %v)", time.Since(at), pingInterval, pongWait)
		}
	}
	t.Logf("%d frozen sockets closed within %v of the freeze (ping %v, pong wait %v)", n, time.Since(at), pingInterval, pongWait)
	eventually(t, "the proxy sees every server side closed", func() bool { return fp.ServerClosed() == n })
}
