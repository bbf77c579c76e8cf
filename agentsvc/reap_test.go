package agentsvc

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/wire"
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

// Pages whose network froze behind a proxy (nothing forwarded either way, nothing closed)
// are reaped: the agent's keep-alive pings go unanswered and each socket is closed once it
// has been silent for PongWait, its TCP connection too; the open-socket count drops to zero.
// Twenty pages with a conversation each, their sockets parked. With BYOMCP_REAP_DEFAULTS set
// the test runs with the defaults (25 s, 60 s) and logs the time to close.
func TestFrozenProxyReapsPageSockets(t *testing.T) {
	n := 20
	pingInterval, pongWait := 200*time.Millisecond, 500*time.Millisecond
	if os.Getenv("BYOMCP_REAP_DEFAULTS") != "" {
		pingInterval, pongWait = 25*time.Second, 60*time.Second
	}
	ts := newTestServer(t, textModel("ok"), func(c *Config) { c.PingInterval = pingInterval; c.PongWait = pongWait })
	fp := newFrozenProxy(t, strings.TrimPrefix(ts.wsURL, "ws://"))
	via := *ts
	via.wsURL = "ws://" + fp.addr()
	for range n {
		p := newFakePage(t, &via, testOrigin, echoTool())
		p.waitListed(1)
		p.session(wire.SessionParams{})
	}
	if got := ts.ConnCount(); got != n {
		t.Fatalf("before the freeze: got %d open sockets, want %d", got, n)
	}
	fp.freeze()
	at := time.Now()
	deadline := at.Add(2*(pingInterval+pongWait) + waitLimit) // generous: asserted is that they close
	for ts.ConnCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := ts.ConnCount(); got != 0 {
		t.Fatalf("%d of %d frozen sockets still open %v after the freeze (ping %v, pong wait %v)", got, n, time.Since(at), pingInterval, pongWait)
	}
	t.Logf("%d frozen page sockets closed within %v of the freeze (ping %v, pong wait %v)", n, time.Since(at), pingInterval, pongWait)
	waitFor(t, "the proxy sees every server side closed", func() bool { return fp.serverClosed.Load() == int32(n) })
}

// A pong wait no longer than the ping interval would close every socket before its ping's
// answer could extend the deadline: refused at construction, with both figures named.
func TestPongWaitMustExceedPingInterval(t *testing.T) {
	_, err := NewServer(Config{Store: newTestStore(), Model: textModel("ok"), PingInterval: time.Minute, PongWait: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "PongWait (30s) must be longer than PingInterval (1m0s)") {
		t.Errorf("got %v, want the PongWait error", err)
	}
}
