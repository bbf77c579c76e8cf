package wsrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// testTimeout bounds waits on real sockets so a broken test fails instead of hanging; no test
// asserts how long anything took.
const testTimeout = 10 * time.Second

// peerList holds the peers a test server made, to close them at cleanup.
type peerList struct {
	mu  sync.Mutex
	all []*Peer
}

func (l *peerList) add(p *Peer) {
	l.mu.Lock()
	l.all = append(l.all, p)
	l.mu.Unlock()
}

// closeAll closes every peer and waits for each to end.
func (l *peerList) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.all {
		p.Close(nil)
		p.Wait()
	}
}

// wsServer serves one Peer per WebSocket and sends each on the returned channel. The peers are
// closed and the server stopped at cleanup.
func wsServer(t testing.TB, wo WSOptions, o Options, setup func(*Peer)) (string, <-chan *Peer) {
	t.Helper()
	peers := make(chan *Peer, 8)
	var made peerList
	var up websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		p := NewPeer(NewWebSocketConn(c, wo), o)
		if setup != nil {
			setup(p)
		}
		made.add(p)
		p.Start()
		peers <- p
		p.Wait()
	}))
	t.Cleanup(func() {
		made.closeAll()
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), peers
}

// dial opens a client socket, closed at cleanup.
func dial(t testing.TB, url string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func recvPeer(t testing.TB, peers <-chan *Peer) *Peer {
	t.Helper()
	select {
	case p := <-peers:
		return p
	case <-time.After(testTimeout):
		t.Fatal("no server peer")
		return nil
	}
}

// waitPeer returns why p ended, failing the test if it does not end.
func waitPeer(t *testing.T, p *Peer) error {
	t.Helper()
	select {
	case <-p.Done():
		return p.Wait()
	case <-time.After(testTimeout):
		t.Fatal("server peer did not end")
		return nil
	}
}

// readClose reads from the client socket until it fails and returns the close status.
func readClose(t *testing.T, c *websocket.Conn) (*websocket.CloseError, []string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testTimeout))
	var texts []string
	for range 1000 {
		_, data, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a close frame", err)
			}
			return ce, texts
		}
		texts = append(texts, string(data))
	}
	t.Fatal("no close frame")
	return nil, nil
}

func TestWebSocketRoundTrip(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{}, setupHandlers)
	client := NewPeer(NewWebSocketConn(dial(t, url), WSOptions{}), Options{})
	client.Handle("whoami", func(ctx context.Context, req *Request) (any, error) { return "client", nil })
	client.Start()
	defer func() {
		client.Close(nil)
		client.Wait()
	}()
	server := recvPeer(t, peers)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	var sum int
	if err := client.Call(ctx, "add", map[string]int{"a": 40, "b": 2}, &sum); err != nil || sum != 42 {
		t.Errorf("client→server: got %d, %v, want 42, nil", sum, err)
	}
	var who string
	if err := server.Call(ctx, "whoami", nil, &who); err != nil || who != "client" {
		t.Errorf("server→client: got %q, %v, want \"client\", nil", who, err)
	}
	big := strings.Repeat("x", 100<<10) // bigger than the kept read buffer
	var echo []string
	if err := client.Call(ctx, "echo", []string{big}, &echo); err != nil || len(echo) != 1 || echo[0] != big {
		t.Errorf("big echo: got %d items, %v, want the same text back", len(echo), err)
	}
	if err := client.Call(ctx, "echo", []string{"small"}, &echo); err != nil || echo[0] != "small" {
		t.Errorf("echo after a big one: got %v, %v, want [small]", echo, err)
	}
}

func TestWebSocketReadLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		size  int
		ok    bool
	}{
		{"at the limit", 1024, 1024, true},
		{"over the limit", 1024, 1025, false},
		{"over the default limit", 0, DefaultReadLimit + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, peers := wsServer(t, WSOptions{ReadLimit: tt.limit}, Options{}, setupHandlers)
			c := dial(t, url)
			server := recvPeer(t, peers)
			const frame = `{"jsonrpc":"2.0","id":1,"method":"echo","params":[""]}`
			msg := strings.Replace(frame, `""`, `"`+strings.Repeat("a", tt.size-len(frame))+`"`, 1)
			if len(msg) != tt.size {
				t.Fatalf("message size: got %d, want %d", len(msg), tt.size)
			}
			if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			if tt.ok {
				_ = c.SetReadDeadline(time.Now().Add(testTimeout))
				_, data, err := c.ReadMessage()
				if err != nil || !strings.Contains(string(data), `"result"`) {
					t.Errorf("got %.80s, %v, want the echo", data, err)
				}
				return
			}
			ce, texts := readClose(t, c)
			if ce.Code != websocket.CloseMessageTooBig || len(texts) != 0 {
				t.Errorf("got close %d after %d messages, want 1009 after none", ce.Code, len(texts))
			}
			if err := waitPeer(t, server); !errors.Is(err, websocket.ErrReadLimit) {
				t.Errorf("server Wait: got %v, want ErrReadLimit", err)
			}
		})
	}
}

func TestWebSocketBinaryFrame(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{}, setupHandlers)
	c := dial(t, url)
	server := recvPeer(t, peers)
	if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)); err != nil {
		t.Fatal(err)
	}
	ce, texts := readClose(t, c)
	if ce.Code != websocket.CloseUnsupportedData || len(texts) != 0 {
		t.Errorf("got close %d after %v, want 1003 after nothing", ce.Code, texts)
	}
	if err := waitPeer(t, server); !errors.Is(err, ErrBinaryFrame) {
		t.Errorf("server Wait: got %v, want ErrBinaryFrame", err)
	}
}

func TestWebSocketInvalidUTF8(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{}, setupHandlers)
	c := dial(t, url)
	server := recvPeer(t, peers)
	// A request whose id is not valid UTF-8: answering it would echo the bytes in a text frame.
	if err := c.WriteMessage(websocket.TextMessage, []byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"echo\"}")); err != nil {
		t.Fatal(err)
	}
	ce, texts := readClose(t, c)
	if ce.Code != websocket.CloseInvalidFramePayloadData || len(texts) != 0 {
		t.Errorf("got close %d after %v, want 1007 after nothing", ce.Code, texts)
	}
	if err := waitPeer(t, server); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("server Wait: got %v, want ErrInvalidUTF8", err)
	}
}

func TestWebSocketCloseWithStatus(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{}, nil)
	c := dial(t, url)
	server := recvPeer(t, peers)
	for i := range 3 {
		if err := server.Notify(context.Background(), "agent/event", []int{i}); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("é", 100) // cut on a rune boundary to fit the close frame
	server.CloseWithStatus(websocket.CloseGoingAway, "server shutting down "+long)
	ce, texts := readClose(t, c)
	if ce.Code != websocket.CloseGoingAway || !strings.HasPrefix(ce.Text, "server shutting down é") {
		t.Errorf("got close %d %q, want 1001 \"server shutting down…\"", ce.Code, ce.Text)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"agent/event","params":[0]}`,
		`{"jsonrpc":"2.0","method":"agent/event","params":[1]}`,
		`{"jsonrpc":"2.0","method":"agent/event","params":[2]}`,
	}
	if fmt.Sprint(texts) != fmt.Sprint(want) {
		t.Errorf("before the close frame: got %v, want %v", texts, want)
	}
	if err := waitPeer(t, server); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "1001") {
		t.Errorf("server Wait: got %v, want ErrClosed with 1001", err)
	}
}

func TestWebSocketRateLimitCloses(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{RateLimit: 0.001, RateBurst: 1}, nil)
	c := dial(t, url)
	server := recvPeer(t, peers)
	for range abuseFactor + 1 {
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","method":"n"}`)); err != nil {
			t.Fatal(err)
		}
	}
	ce, texts := readClose(t, c)
	if ce.Code != websocket.ClosePolicyViolation || len(texts) != 0 {
		t.Errorf("got close %d after %v, want 1008 after nothing", ce.Code, texts)
	}
	if err := waitPeer(t, server); err != ErrRateLimited {
		t.Errorf("server Wait: got %v, want ErrRateLimited", err)
	}
}

func TestWebSocketPing(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{PingInterval: 5 * time.Millisecond}, nil)
	c := dial(t, url)
	recvPeer(t, peers)
	pinged := make(chan struct{}, 1)
	c.SetPingHandler(func(data string) error {
		select {
		case pinged <- struct{}{}:
		default:
		}
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}()
	select {
	case <-pinged:
	case <-time.After(testTimeout):
		t.Fatal("no ping received")
	}
}

func TestWebSocketPongWait(t *testing.T) {
	// The client never reads, so it never answers pings: the server's read deadline expires.
	url, peers := wsServer(t, WSOptions{PongWait: 20 * time.Millisecond}, Options{PingInterval: 5 * time.Millisecond}, nil)
	dial(t, url)
	server := recvPeer(t, peers)
	err := waitPeer(t, server)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("server Wait: got %v, want a read timeout", err)
	}
}

func TestWebSocketIdleWithoutPongWait(t *testing.T) {
	// Without PongWait (a client that does not ping, like the load generator's pages) a
	// socket may stay silent for ever: the deadline of the last message read must not end it
	// once MessageTimeout has passed.
	const msgTimeout = 20 * time.Millisecond
	url, peers := wsServer(t, WSOptions{PongWait: -1, MessageTimeout: msgTimeout}, Options{PingInterval: -1}, setupHandlers)
	client := NewPeer(NewWebSocketConn(dial(t, url), WSOptions{}), Options{PingInterval: -1})
	client.Start()
	defer func() {
		client.Close(nil)
		client.Wait()
	}()
	server := recvPeer(t, peers)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var sum int
	if err := client.Call(ctx, "add", map[string]int{"a": 1, "b": 2}, &sum); err != nil || sum != 3 {
		t.Fatalf("first call: got %d, %v, want 3, nil", sum, err)
	}
	time.Sleep(10 * msgTimeout) // idle, well past the last message's deadline
	select {
	case <-server.Done():
		t.Fatalf("the idle socket ended: %v", server.Wait())
	default:
	}
	if err := client.Call(ctx, "add", map[string]int{"a": 40, "b": 2}, &sum); err != nil || sum != 42 {
		t.Errorf("call after idling: got %d, %v, want 42, nil", sum, err)
	}
}

func TestWebSocketCloseWithStatusSilentClient(t *testing.T) {
	// The client does not read, so it never answers the close frame: the server closes the
	// socket after its grace period anyway, and the close frame is there when the client reads.
	url, peers := wsServer(t, WSOptions{WriteTimeout: 20 * time.Millisecond}, Options{}, nil)
	c := dial(t, url)
	server := recvPeer(t, peers)
	server.CloseWithStatus(websocket.CloseGoingAway, "bye")
	if err := waitPeer(t, server); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "1001") {
		t.Errorf("server Wait: got %v, want ErrClosed with 1001", err)
	}
	if ce, _ := readClose(t, c); ce.Code != websocket.CloseGoingAway || ce.Text != "bye" {
		t.Errorf("got close %d %q, want 1001 \"bye\"", ce.Code, ce.Text)
	}
}

func TestAcceptDial(t *testing.T) {
	peers := make(chan *Peer, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Accept(w, r, AcceptOptions{Subprotocols: []string{"mcp"}, WS: WSOptions{ReadLimit: 64}})
		if err != nil {
			return // gorilla answered the HTTP request
		}
		p := NewPeer(conn, Options{})
		setupHandlers(p)
		p.Start()
		peers <- p
		p.Wait()
	}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	conn, resp, err := Dial(ctx, url, http.Header{"Origin": {"http://localhost"}}, WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "mcp" {
		t.Errorf("subprotocol: got %q, want mcp", got)
	}
	client := NewPeer(conn, Options{})
	client.Start()
	server := recvPeer(t, peers)
	var sum int
	if err := client.Call(ctx, "add", map[string]int{"a": 1, "b": 2}, &sum); err != nil || sum != 3 {
		t.Errorf("got %d, %v, want 3, nil", sum, err)
	}
	// The server's WSOptions apply: a message over 64 bytes closes with 1009.
	err = client.Call(ctx, "echo", []string{strings.Repeat("x", 100)}, nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("oversize call: got %v, want ErrClosed", err)
	}
	var ce *websocket.CloseError
	if err := client.Wait(); !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Errorf("client Wait: got %v, want close 1009", err)
	}
	if err := waitPeer(t, server); !errors.Is(err, websocket.ErrReadLimit) {
		t.Errorf("server Wait: got %v, want ErrReadLimit", err)
	}

	// A plain HTTP request is refused by Accept.
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET: got %d, want 400", res.StatusCode)
	}
	if _, _, err := Dial(ctx, "ws://127.0.0.1:1/", nil, WSOptions{}); err == nil {
		t.Error("Dial to a closed port: got nil error, want one")
	}
}

// A peer that is writing when the remote end closes the connection with a status ends with
// that status, not with the write that found the close handshake under way ("websocket: close
// sent": the reader had answered the remote end's close frame). Races of the two, many times.
func TestRemoteCloseWinsOverTheWriteItInterrupts(t *testing.T) {
	for i := range 60 {
		url, peers := wsServer(t, WSOptions{}, Options{}, nil)
		client := NewPeer(NewWebSocketConn(dial(t, url), WSOptions{}), Options{PingInterval: -1, SendQueue: 1 << 14})
		client.Start()
		server := recvPeer(t, peers)
		stop := make(chan struct{})
		go func() { // the client keeps writing
			for {
				select {
				case <-stop:
					return
				case <-client.Done():
					return
				default:
				}
				_ = client.Notify(context.Background(), "notifications/progress", map[string]any{"progress": i})
				time.Sleep(time.Duration(10+i%3*20) * time.Microsecond)
			}
		}()
		time.Sleep(time.Duration(i%7) * 100 * time.Microsecond)
		server.CloseWithStatus(websocket.CloseInternalServerErr, "internal error")
		err := waitPeer(t, client)
		close(stop)
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr {
			t.Fatalf("run %d: the client ended with %v, want the remote end's close 1011", i, err)
		}
	}
}

// An outside test: 3000 requests sent at once by a client that reads were answered -32029
// each, faster than the answers were written: the send queue filled and the peer was dropped
// as slow (1006, ErrSlowPeer), instead of closed for flooding (1008) as documented.
func TestWebSocketFloodClosesForFlooding(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{RateLimit: 50, RateBurst: 200}, func(p *Peer) {
		p.Handle("ping", func(context.Context, *Request) (any, error) { return struct{}{}, nil })
	})
	c := dial(t, url)
	server := recvPeer(t, peers)
	_ = c.SetReadDeadline(time.Now().Add(testTimeout))
	var read, refused int
	var err error
	done := make(chan struct{})
	go func() { // a page that reads everything, while it floods
		defer close(done)
		for range 4000 {
			var data []byte
			if _, data, err = c.ReadMessage(); err != nil {
				return
			}
			read++
			if strings.Contains(string(data), `"code":-32029`) {
				refused++
			}
		}
	}()
	var flood []byte
	for i := range 3000 {
		flood = append(flood, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)...)
		if c.WriteMessage(websocket.TextMessage, flood) != nil {
			break // closed meanwhile: what it said is read
		}
		flood = flood[:0]
	}
	<-done
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
		t.Errorf("got %v after %d messages (%d refusals), want a close 1008", err, read, refused)
	}
	if err := waitPeer(t, server); err != ErrRateLimited {
		t.Errorf("server Wait: got %v, want ErrRateLimited", err)
	}
}

// A ping that meets this end's own close frame is no cause of the peer's end: the reader
// that sent the close (an unfinished message's timeout) ends it with its own (CI once ended
// with "wsrpc: ping: websocket: close sent" and the timeout went uncounted).
func TestPingAfterOwnCloseIsAWeakCause(t *testing.T) {
	url, peers := wsServer(t, WSOptions{}, Options{PingInterval: -1}, nil)
	c := dial(t, url)
	server := recvPeer(t, peers)
	w := server.conn.(*wsConn)
	if err := w.writeClose(websocket.ClosePolicyViolation, "message not completed in time"); err != nil {
		t.Fatal(err)
	}
	if err := w.Ping(); !errors.Is(err, errRemoteClosing) {
		t.Fatalf("Ping after the close frame: got %v, want a weak cause (errRemoteClosing), which Close lets the reader's replace", err)
	}
	_ = c.Close()
}
