package wsrpc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"
)

// panicRecorder is an Options.OnPanic that records what it is told.
type panicRecorder struct {
	mu    sync.Mutex
	where []string
}

func (r *panicRecorder) record(where string, _ any) {
	r.mu.Lock()
	r.where = append(r.where, where)
	r.mu.Unlock()
}

func (r *panicRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.where...)
}

// A panic in any goroutine of a peer is contained: the request is answered -32603, the peer
// (only that one) is closed with 1011, OnPanic is told, and another peer goes on serving.
func TestPanicClosesOnlyThatPeerWith1011(t *testing.T) {
	tests := []struct {
		name, send, reply, where string
	}{
		{"handler", `{"jsonrpc":"2.0","id":1,"method":"boom"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`, "handler"},
		{"start", `{"jsonrpc":"2.0","id":1,"method":"staged"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`, "handler"},
		{"reply follow-up", `{"jsonrpc":"2.0","id":1,"method":"after"}`, `{"jsonrpc":"2.0","id":1,"result":"ok"}`, "after"},
		{"notification", `{"jsonrpc":"2.0","method":"crash"}`, "", "notification"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec panicRecorder
				var sc *statusConn
				p, raw := startRaw(t, Options{OnPanic: rec.record}, func(c MessageConn) MessageConn {
					sc = &statusConn{MessageConn: c}
					return sc
				}, func(p *Peer) {
					p.Handle("boom", func(context.Context, *Request) (any, error) { panic("handler bug") })
					p.HandleStart("staged", func(*Request) Handler { panic("start bug") })
					p.Handle("after", func(context.Context, *Request) (any, error) {
						return ReplyThen("ok", func() { panic("follow-up bug") }), nil
					})
					p.HandleNotification("crash", func(context.Context, *Request) { panic("notification bug") })
				})
				// Another connection in the same process keeps working throughout.
				other, _ := startPair(t, Options{}, Options{}, setupHandlers)

				raw.send(tt.send)
				if tt.reply != "" {
					raw.expect(tt.reply)
				}
				if _, err := raw.c.ReadMessage(); err == nil {
					t.Errorf("the test's end got a message, want the connection closed")
				}
				if err := p.Wait(); !errors.Is(err, ErrPanicked) {
					t.Errorf("Wait: got %v, want ErrPanicked", err)
				}
				if code, _ := sc.status(); code != 1011 {
					t.Errorf("close status: got %d, want 1011", code)
				}
				if got := rec.got(); len(got) != 1 || got[0] != tt.where {
					t.Errorf("OnPanic: got %v, want [%s]", got, tt.where)
				}
				var sum int
				if err := other.Call(context.Background(), "add", map[string]int{"a": 1, "b": 2}, &sum); err != nil || sum != 3 {
					t.Errorf("other peer: got %d, %v, want 3, nil", sum, err)
				}
			})
		})
	}
}

// HandleStart's start runs in the read goroutine in arrival order, even though the handlers
// then run concurrently.
func TestHandleStartRunsInArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var order []int
		release := make(chan struct{})
		_, raw := startRaw(t, Options{}, nil, func(p *Peer) {
			p.HandleStart("step", func(req *Request) Handler {
				var n []int
				if err := json.Unmarshal(req.Params, &n); err != nil {
					t.Errorf("params %s: %v", req.Params, err)
				}
				order = append(order, n[0]) // only the read goroutine appends
				return func(ctx context.Context, req *Request) (any, error) {
					<-release
					return n[0], nil
				}
			})
		})
		const n = 50
		for i := range n {
			raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"step","params":[%d]}`, i, i))
		}
		synctest.Wait()
		close(release)
		for range n {
			raw.recv()
		}
		if len(order) != n {
			t.Fatalf("got %d starts, want %d", len(order), n)
		}
		for i, v := range order {
			if v != i {
				t.Fatalf("got start order %v, want 0..%d", order, n-1)
			}
		}
	})
}

// A message that has started must end within MessageTimeout: a client that sends a frame
// with FIN=0 and then only answers pings is closed with 1008 (defect #8 of issue 11).
func TestWebSocketUnfinishedMessageTimesOut(t *testing.T) {
	url, peers := wsServer(t, WSOptions{MessageTimeout: 300 * time.Millisecond, PongWait: time.Minute},
		Options{PingInterval: 30 * time.Millisecond}, setupHandlers)
	c := dial(t, url)
	server := recvPeer(t, peers)
	pongs := make(chan struct{}, 1000)
	c.SetPingHandler(func(data string) error {
		select {
		case pongs <- struct{}{}:
		default:
		}
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	// A text frame with FIN=0 (opcode 1, more to come), masked as a client must.
	payload := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("a", 1000))
	frame := []byte{0x01, 0x80 | 126}
	frame = binary.BigEndian.AppendUint16(frame, uint16(len(payload)))
	var key [4]byte
	_, _ = rand.Read(key[:])
	frame = append(frame, key[:]...)
	for i, b := range payload {
		frame = append(frame, b^key[i%4])
	}
	if _, err := c.NetConn().Write(frame); err != nil {
		t.Fatal(err)
	}
	ce, texts := readClose(t, c) // answers the server's pings meanwhile
	if ce.Code != websocket.ClosePolicyViolation || len(texts) != 0 {
		t.Errorf("got close %d after %d messages, want 1008 after none", ce.Code, len(texts))
	}
	if len(pongs) == 0 {
		t.Errorf("the server sent no ping; the test must answer pings while the message is unfinished")
	}
	if err := waitPeer(t, server); !errors.Is(err, ErrMessageTimeout) {
		t.Errorf("server Wait: got %v, want ErrMessageTimeout", err)
	}
}
