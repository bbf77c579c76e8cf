// Package wsrpctest has what tests of sockets share: a TCP proxy that freezes, as a lost
// network does, to show that the server reaps what falls silent.
package wsrpctest

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// FrozenProxy is a loopback TCP proxy that forwards both ways until Freeze, then stops
// forwarding in both directions without closing anything: a phone that lost its network
// behind a NAT, a proxy that hangs. After the freeze it reads and drops what comes, so it
// sees when the server closes its side (ServerClosed); it closes nothing itself until the
// test ends.
type FrozenProxy struct {
	ln           net.Listener
	target       string
	frozen       chan struct{}
	once         sync.Once
	serverClosed atomic.Int32

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func NewFrozenProxy(t testing.TB, target string) *FrozenProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fp := &FrozenProxy{ln: ln, target: target, frozen: make(chan struct{})}
	fp.wg.Add(1)
	go fp.accept()
	t.Cleanup(fp.close)
	return fp
}

// Addr is the proxy's address (host:port).
func (fp *FrozenProxy) Addr() string { return fp.ln.Addr().String() }

func (fp *FrozenProxy) accept() {
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
func (fp *FrozenProxy) pipe(dst, src net.Conn, fromServer bool) {
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

// Freeze stops all forwarding, in both directions, closing nothing.
func (fp *FrozenProxy) Freeze() { fp.once.Do(func() { close(fp.frozen) }) }

func (fp *FrozenProxy) close() {
	fp.Freeze()
	fp.ln.Close()
	fp.mu.Lock()
	for _, c := range fp.conns {
		c.Close()
	}
	fp.mu.Unlock()
	fp.wg.Wait()
}

// ServerClosed counts the server-side connections whose server end was closed (the end of
// the stream, or a reset) after the freeze.
func (fp *FrozenProxy) ServerClosed() int32 { return fp.serverClosed.Load() }
