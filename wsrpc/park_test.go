package wsrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// acceptServer serves a Peer per socket with Accept and Run, the way agentsvc serves pages:
// the HTTP handler returns at once. Each peer is sent on the channel; done receives each
// peer's cause from Run.
func acceptServer(t *testing.T, ao AcceptOptions, o Options) (url string, peers <-chan *Peer, done <-chan error) {
	t.Helper()
	pc := make(chan *Peer, 64)
	dc := make(chan error, 64)
	var made peerList
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, ao)
		if err != nil {
			return
		}
		p := NewPeer(conn, o)
		setupHandlers(p)
		made.add(p)
		p.Run(func(cause error) { dc <- cause })
		pc <- p
	}))
	t.Cleanup(func() {
		made.closeAll()
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), pc, dc
}

// readingGoroutines counts the goroutines inside a peer's read loop.
func readingGoroutines(t *testing.T) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(rec, "wsrpc.(*Peer).readLoop") {
			continue
		}
		var count int
		if _, err := fmt.Sscanf(rec, "%d @", &count); err == nil {
			n += count
		}
	}
	return n
}

// eventually polls cond until it holds or testTimeout passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			var b bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			for _, rec := range strings.Split(b.String(), "\n\n") {
				if strings.Contains(rec, "readLoop") {
					t.Log(rec)
				}
			}
			t.Fatalf("%s: not reached in %v", what, testTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Sockets of Accept hold no goroutine while idle: between messages (and before the first)
// they wait in the process's poller, and each message (a call, a pong) is read by a
// goroutine that ends after it. Calls keep working across idle times, in both directions,
// and the keep-alive pings (every 20 ms here) are answered through parked sockets. Without
// the poller, each idle socket kept one goroutine in the read loop, and the wait for none
// fails.
func TestIdleSocketsHoldNoGoroutine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the idle-socket poller is Linux's epoll; elsewhere an idle socket keeps its reading goroutine")
	}
	for _, rb := range []int{0, 512} { // net/http's 4 KiB reader, and one of our own
		t.Run("read buffer "+strconv.Itoa(rb), func(t *testing.T) {
			url, peers, _ := acceptServer(t, AcceptOptions{ReadBufferSize: rb}, Options{PingInterval: 20 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			const n = 20
			clients := make([]*websocket.Conn, n)
			servers := make([]*Peer, n)
			for i := range clients {
				clients[i] = dial(t, url) // gorilla answers the server's pings while it reads
				servers[i] = recvPeer(t, peers)
				go func(c *websocket.Conn) {
					for {
						if _, _, err := c.ReadMessage(); err != nil {
							return
						}
					}
				}(clients[i])
			}
			eventually(t, "every socket idle", func() bool { return readingGoroutines(t) == 0 })
			for round := range 3 {
				for i, c := range clients {
					msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(round*n+i+1) + `,"method":"add","params":{"a":1,"b":2}}`
					if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
						t.Fatal(err)
					}
				}
				// The servers call back too: their replies come through the parked sockets.
				for _, s := range servers {
					if err := s.Notify(ctx, "tick", nil); err != nil {
						t.Fatal(err)
					}
				}
				eventually(t, "every socket idle again", func() bool { return readingGoroutines(t) == 0 })
			}
			for _, s := range servers {
				select {
				case <-s.Done():
					t.Fatalf("a server peer ended: %v", s.Wait())
				default:
				}
			}
		})
	}
}

// A parked socket still ends on each of the ways a reading one does, and Run's done gets
// the cause: the remote end leaves, the read deadline passes (a silent remote end, pings
// off), the server closes it, the server closes it with a status.
func TestParkedSocketEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the idle-socket poller is Linux's epoll")
	}
	call := func(t *testing.T, url string) *Peer {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		conn, _, err := Dial(ctx, url, nil, WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := NewPeer(conn, Options{})
		c.Start()
		t.Cleanup(func() { c.Close(nil); c.Wait() })
		var sum int
		if err := c.Call(ctx, "add", map[string]int{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
			t.Fatalf("add: got %d, %v, want 5, nil", sum, err)
		}
		return c
	}
	wait := func(t *testing.T, done <-chan error) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(testTimeout):
			t.Fatal("Run's done was not called")
			return nil
		}
	}
	t.Run("remote leaves", func(t *testing.T) {
		url, peers, done := acceptServer(t, AcceptOptions{ReadBufferSize: 512}, Options{})
		c := call(t, url)
		recvPeer(t, peers)
		eventually(t, "server idle", func() bool { return readingGoroutines(t) == 1 }) // the client's
		c.Close(nil)
		if err := wait(t, done); err == nil || errors.Is(err, ErrPanicked) {
			t.Errorf("got %v, want the read error", err)
		}
	})
	t.Run("read deadline", func(t *testing.T) {
		url, peers, done := acceptServer(t, AcceptOptions{ReadBufferSize: 512, WS: WSOptions{PongWait: 50 * time.Millisecond}},
			Options{PingInterval: -1})
		call(t, url)
		recvPeer(t, peers)
		var ne net.Error
		if err := wait(t, done); !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("got %v, want a read timeout", err)
		}
	})
	t.Run("closed by the server", func(t *testing.T) {
		url, peers, done := acceptServer(t, AcceptOptions{ReadBufferSize: 512}, Options{})
		call(t, url)
		s := recvPeer(t, peers)
		eventually(t, "server idle", func() bool { return readingGoroutines(t) == 1 })
		s.Close(errBoom)
		if err := wait(t, done); !errors.Is(err, errBoom) {
			t.Errorf("got %v, want %v", err, errBoom)
		}
	})
	t.Run("closed with a status", func(t *testing.T) {
		url, peers, done := acceptServer(t, AcceptOptions{ReadBufferSize: 512}, Options{})
		c := call(t, url)
		s := recvPeer(t, peers)
		eventually(t, "server idle", func() bool { return readingGoroutines(t) == 1 })
		s.CloseWithStatus(websocket.CloseGoingAway, "bye")
		if err := wait(t, done); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "1001") {
			t.Errorf("got %v, want ErrClosed with 1001", err)
		}
		var ce *websocket.CloseError
		if err := c.Wait(); !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
			t.Errorf("client: got %v, want close 1001", err)
		}
	})
}

// Run's done gets the cause once the peer has ended, before Wait returns; on a peer closed
// before it started (a server shutting down between Accept and Run) it is called at once,
// so whoever counts the sockets still served is told; a panic in done is contained.
func TestRunDone(t *testing.T) {
	t.Run("ends", func(t *testing.T) {
		a, b := Pipe()
		p := NewPeer(a, Options{})
		got := make(chan error, 1)
		p.Run(func(cause error) { got <- cause })
		b.Close()
		err := p.Wait()
		select {
		case cause := <-got:
			if cause != err || err == nil {
				t.Errorf("done got %v, Wait %v: want the same cause", cause, err)
			}
		default:
			t.Error("Wait returned before done was called")
		}
	})
	t.Run("closed before it started", func(t *testing.T) {
		a, _ := Pipe()
		p := NewPeer(a, Options{})
		p.Close(errBoom)
		got := make(chan error, 1)
		p.Run(func(cause error) { got <- cause })
		select {
		case cause := <-got:
			if !errors.Is(cause, errBoom) {
				t.Errorf("got %v, want %v", cause, errBoom)
			}
		default:
			t.Error("done was not called")
		}
	})
	t.Run("panics", func(t *testing.T) {
		a, b := Pipe()
		var where string
		p := NewPeer(a, Options{OnPanic: func(w string, v any) { where = w }})
		p.Run(func(error) { panic("in done") })
		b.Close()
		p.Wait()
		if where != "close" {
			t.Errorf("OnPanic: got %q, want close", where)
		}
	})
}
