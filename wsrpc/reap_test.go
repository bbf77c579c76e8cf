package wsrpc

import (
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// frozenProxy is a loopback TCP proxy that forwards both ways until freeze, then stops
// forwarding in both directions without closing anything: a phone that lost its network
// behind a NAT, a proxy that hangs. After the freeze it reads and drops what comes, so it
// sees when the server closes its side (serverClosed); it closes nothing itself until the
// test ends.
type frozenProxy struct {
	ln     net.Listener
	target string
	frozen chan struct{}
	once   sync.Once
	// serverClosed counts the server-side connections whose server end was closed (the end
	// of the stream, or a reset) after the freeze.
	serverClosed atomic.Int32

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func newFrozenProxy(t *testing.T, target string) *frozenProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fp := &frozenProxy{ln: ln, target: target, frozen: make(chan struct{})}
	fp.wg.Add(1)
	go fp.accept()
	t.Cleanup(fp.close)
	return fp
}

func (fp *frozenProxy) addr() string { return fp.ln.Addr().String() }

func (fp *frozenProxy) accept() {
	defer fp.wg.Done()
	for {
		c, err := fp.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", fp.target)
		if err != nil {
			c.Close()
			continue
		}
		fp.mu.Lock()
		fp.conns = append(fp.conns, c, s)
		fp.mu.Unlock()
		fp.wg.Add(2)
		go fp.pipe(s, c, false)
		go fp.pipe(c, s, true)
	}
}

// pipe copies src to dst until the freeze; after it, it drops what it reads until src
// ends. fromServer: src is the server's side.
func (fp *frozenProxy) pipe(dst, src net.Conn, fromServer bool) {
	defer fp.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-fp.frozen:
			if err != nil {
				if fromServer && !errors.Is(err, net.ErrClosed) { // not closed by fp.close
					fp.serverClosed.Add(1)
				}
				return
			}
			continue
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if cw, ok := dst.(*net.TCPConn); ok && errors.Is(err, io.EOF) {
				_ = cw.CloseWrite()
			}
			return
		}
	}
}

// freeze stops all forwarding, in both directions, closing nothing.
func (fp *frozenProxy) freeze() { fp.once.Do(func() { close(fp.frozen) }) }

func (fp *frozenProxy) close() {
	fp.freeze()
	fp.ln.Close()
	fp.mu.Lock()
	for _, c := range fp.conns {
		c.Close()
	}
	fp.mu.Unlock()
	fp.wg.Wait()
}

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
	fp := newFrozenProxy(t, strings.TrimPrefix(url, "ws://"))
	servers := make([]*Peer, n)
	pongs := make(chan struct{}, 1024)
	for i := range servers {
		c := dial(t, "ws://"+fp.addr()+"/")
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

	fp.freeze()
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
	eventually(t, "the proxy sees every server side closed", func() bool { return fp.serverClosed.Load() == n })
}
