package wsrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// countingConn is a net.Conn that records its writes.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	c.mu.Unlock()
	return len(p), nil
}

func (c *countingConn) Close() error { return nil }

func TestCorkGathersWrites(t *testing.T) {
	under := &countingConn{}
	c := &corkConn{Conn: under}
	c.Write([]byte("a")) // not corked: straight through
	c.cork()
	c.Write([]byte("b"))
	c.Write([]byte("c"))
	if len(under.writes) != 1 {
		t.Fatalf("writes while corked reached the connection: %q", under.writes)
	}
	if err := c.uncork(); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("d"))
	got := fmt.Sprintf("%q", under.writes)
	if want := `["a" "bc" "d"]`; got != want {
		t.Fatalf("writes %s, want %s", got, want)
	}

	// A batch bigger than maxCork goes out in parts, in order.
	under.writes = nil
	c.cork()
	big := strings.Repeat("x", maxCork-1)
	c.Write([]byte("1"))
	c.Write([]byte(big))
	c.Write([]byte(big + big))
	c.Write([]byte("2"))
	c.uncork()
	var all strings.Builder
	for _, w := range under.writes {
		all.Write(w)
	}
	if all.String() != "1"+big+big+big+"2" || len(under.writes) != 3 {
		t.Fatalf("%d writes of %d bytes, want 3 writes, in order", len(under.writes), all.Len())
	}

	// Close writes what was gathered: a close frame written by another goroutine is not lost.
	under.writes = nil
	c.cork()
	c.Write([]byte("close frame"))
	c.Close()
	if got := fmt.Sprintf("%q", under.writes); got != `["close frame"]` {
		t.Fatalf("Close wrote %s, want the gathered bytes", got)
	}
	c.uncork()
}

func TestCorkCloseUnblocksWrite(t *testing.T) {
	a, b := net.Pipe() // a write blocks until the other end reads
	defer b.Close()
	c := &corkConn{Conn: a}
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write([]byte("nobody reads this"))
		wrote <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the write block (either order passes)
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(testTimeout):
		t.Fatal("Close waited for a blocked write")
	}
	select {
	case err := <-wrote:
		if err == nil {
			t.Fatal("the blocked write succeeded after Close")
		}
	case <-time.After(testTimeout):
		t.Fatal("the blocked write did not return after Close")
	}
}

// TestAcceptDialBatch sends bursts over Accept and Dial sockets, which gather the queued
// messages into one write: every message arrives, in order.
func TestAcceptDialBatch(t *testing.T) {
	got := make(chan string, 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, AcceptOptions{ReadBufferSize: 256})
		if err != nil {
			return
		}
		if conn.(*wsConn).cork == nil {
			t.Error("Accept: the socket cannot gather writes")
		}
		p := NewPeer(conn, Options{})
		p.HandleNotification("n", func(_ context.Context, req *Request) { got <- "server got " + string(req.Params) })
		p.Handle("burst", func(ctx context.Context, req *Request) (any, error) {
			for i := range 100 {
				if err := p.Notify(ctx, "n", []int{i}); err != nil {
					return nil, err
				}
			}
			return "done", nil
		})
		p.Serve()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	conn, _, err := Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil, WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if conn.(*wsConn).cork == nil {
		t.Error("Dial: the socket cannot gather writes")
	}
	client := NewPeer(conn, Options{})
	client.HandleNotification("n", func(_ context.Context, req *Request) { got <- "client got " + string(req.Params) })
	client.Start()
	defer client.Close(nil)
	for i := range 200 { // the client's burst, under its send queue of 256
		if err := client.Notify(ctx, "n", []int{i}); err != nil {
			t.Fatal(err)
		}
	}
	var done string
	if err := client.Call(ctx, "burst", nil, &done); err != nil || done != "done" {
		t.Fatalf("burst: %q, %v", done, err)
	}
	// 200 from the client to the server, then 100 back, each side in order.
	next := map[string]int{}
	for range 300 {
		select {
		case s := <-got:
			side, n, _ := strings.Cut(s, " [")
			if want := fmt.Sprint(next[side]) + "]"; n != want {
				t.Fatalf("%s [%s, want [%s", side, n, want)
			}
			next[side]++
		case <-ctx.Done():
			t.Fatalf("got %v of 200 and 100 notifications", next)
		}
	}
}

// TestIdlePeerGoroutines: an idle peer runs one goroutine, its reader; the writer runs only
// while there is something to write.
func TestIdlePeerGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := startPair(t, Options{}, Options{}, setupHandlers)
		var sum int
		if err := a.Call(t.Context(), "add", map[string]int{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
			t.Fatalf("add: %d, %v", sum, err)
		}
		synctest.Wait()
		buf := make([]byte, 1<<20)
		stacks := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
		readers, writers := 0, 0
		for _, s := range stacks {
			if !strings.Contains(s, "synctest bubble") { // other tests' goroutines
				continue
			}
			if strings.Contains(s, "wsrpc.(*Peer).readLoop") {
				readers++
			}
			if strings.Contains(s, "wsrpc.(*Peer).writeLoop") {
				writers++
			}
		}
		if readers != 2 || writers != 0 {
			t.Fatalf("%d read and %d write goroutines for two idle peers, want 2 and 0", readers, writers)
		}
		b.Close(nil)
		a.Wait()
		synctest.Wait()
	})
}

// readCountingConn is a net.Conn that counts its reads.
type readCountingConn struct {
	net.Conn
	reads int
}

func (c *readCountingConn) Read(p []byte) (int, error) {
	c.reads++
	return c.Conn.Read(p)
}

// A burst of frames read through a small buffer (a page socket's 512 bytes) takes one read
// from the socket, not one per buffer's worth, and comes out whole and in order.
func TestReadAheadTakesABurstInOneRead(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	under := &readCountingConn{Conn: b}
	c := &corkConn{Conn: under}
	defer c.Close()
	var burst []byte
	for i := range 20 { // a turn's twenty answers, ~375 bytes each
		burst = fmt.Appendf(burst, "%03d:%s\n", i, strings.Repeat("x", 370))
	}
	go func() { _, _ = a.Write(burst) }()
	br := bufio.NewReaderSize(c, 512)
	got := make([]byte, len(burst))
	if _, err := io.ReadFull(br, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(burst) {
		t.Fatal("the burst came out changed")
	}
	if under.reads != 1 {
		t.Errorf("%d reads from the socket for a burst of %d bytes, want 1", under.reads, len(burst))
	}
	if c.buffered() != 0 || c.ahead != nil {
		t.Errorf("the read-ahead buffer is still held (%d bytes) once everything was read", c.buffered())
	}
}

// A message read ahead of the reader is answered: the socket does not park with it in the
// read-ahead buffer (where the poller would never see it). The first message fills the
// server's 512-byte buffer exactly; the second comes in the same TCP segment.
func TestReadAheadMessageIsNotParkedOn(t *testing.T) {
	url, peers, _ := acceptServer(t, AcceptOptions{ReadBufferSize: 512}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	// The answers come at once; a socket parked on the second message would answer it only
	// when its read deadline woke it (tens of seconds), after this client gave up.
	conn, _, err := Dial(ctx, url, nil, WSOptions{PongWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ws := conn.(*wsConn)
	defer ws.Close()
	recvPeer(t, peers)
	// A client frame of a 504-byte payload is 512 bytes: 2 + 2 (length) + 4 (mask) + 504.
	first := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"pad":"`
	first += strings.Repeat("p", 504-len(first)-len(`"}}`)) + `"}}`
	second := `{"jsonrpc":"2.0","id":2,"method":"add","params":{"a":1,"b":2}}`
	ws.cork.cork() // both frames in one write
	for _, m := range []string{first, second} {
		if err := ws.WriteMessage([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.cork.uncork(); err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for len(answered) < 2 { // in either order: the requests are handled concurrently
		msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("answers got: %v; waiting for the rest: %v", answered, err)
		}
		for _, id := range []string{`"id":1`, `"id":2`} {
			if strings.Contains(string(msg), id) {
				answered[id] = true
			}
		}
	}
}
