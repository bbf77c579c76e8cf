package wsrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

var errBoom = errors.New("boom: secret detail")

// setupHandlers registers the handlers the round-trip tests call.
func setupHandlers(p *Peer) {
	p.Handle("add", func(ctx context.Context, req *Request) (any, error) {
		var args struct{ A, B int }
		if err := json.Unmarshal(req.Params, &args); err != nil {
			return nil, NewError(CodeInvalidParams, err.Error())
		}
		return args.A + args.B, nil
	})
	p.Handle("echo", func(ctx context.Context, req *Request) (any, error) { return req.Params, nil })
	p.Handle("fail", func(ctx context.Context, req *Request) (any, error) {
		return nil, fmt.Errorf("wrapped: %w", &Error{Code: -32001, Message: "no turn", Data: json.RawMessage(`{"why":"idle"}`)})
	})
	p.Handle("boom", func(ctx context.Context, req *Request) (any, error) { return nil, errBoom })
	p.Handle("badresult", func(ctx context.Context, req *Request) (any, error) { return make(chan int), nil })
	p.Handle("nilerr", func(ctx context.Context, req *Request) (any, error) { return nil, (*Error)(nil) })
}

func TestCallRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logB, logs := observed()
		a, _ := startPair(t, Options{}, Options{Logger: logB}, setupHandlers)
		ctx := context.Background()

		var sum int
		if err := a.Call(ctx, "add", map[string]int{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
			t.Errorf("add: got %d, %v, want 5, nil", sum, err)
		}
		var raw json.RawMessage
		if err := a.Call(ctx, "echo", json.RawMessage(`{"x":[1,"y"]}`), &raw); err != nil || string(raw) != `{"x":[1,"y"]}` {
			t.Errorf("echo: got %s, %v, want {\"x\":[1,\"y\"]}, nil", raw, err)
		}
		if err := a.Call(ctx, "echo", nil, nil); err != nil {
			t.Errorf("echo discarding the result: got %v, want nil", err)
		}
		var s string
		if err := a.Call(ctx, "add", map[string]int{"a": 1}, &s); err == nil || !strings.Contains(err.Error(), "decoding result") {
			t.Errorf("add into a string: got %v, want a decoding error", err)
		}
		for _, params := range []any{make(chan int), 42, "text"} {
			if err := a.Call(ctx, "echo", params, nil); err == nil || !strings.Contains(err.Error(), "encoding params") {
				t.Errorf("params %T: got %v, want an encoding error", params, err)
			}
		}

		errorTests := []struct {
			method  string
			code    int64
			message string
			data    string
		}{
			{"fail", -32001, "no turn", `{"why":"idle"}`},
			{"boom", CodeInternalError, "internal error", ""},
			{"badresult", CodeInternalError, "internal error", ""},
			{"nilerr", CodeInternalError, "internal error", ""},
			{"nope", CodeMethodNotFound, "method not found", ""},
			{"add", CodeInvalidParams, "", ""},
		}
		for _, tt := range errorTests {
			params := any(nil)
			if tt.method == "add" {
				params = []int{1}
			}
			err := a.Call(ctx, tt.method, params, nil)
			var rpcErr *Error
			if !errors.As(err, &rpcErr) {
				t.Errorf("%s: got %v, want an *Error", tt.method, err)
				continue
			}
			if !errors.Is(err, NewError(tt.code, "")) {
				t.Errorf("%s: errors.Is code %d: got false, want true (err %v)", tt.method, tt.code, err)
			}
			if tt.message != "" && rpcErr.Message != tt.message {
				t.Errorf("%s: message: got %q, want %q", tt.method, rpcErr.Message, tt.message)
			}
			if string(rpcErr.Data) != tt.data {
				t.Errorf("%s: data: got %s, want %s", tt.method, rpcErr.Data, tt.data)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: got %q, the handler's detail must not reach the peer", tt.method, err)
			}
		}
		for msg, want := range map[string]int{"handler failed": 2, "encoding a result": 1} {
			if got := logs.FilterMessage(msg).Len(); got != want {
				t.Errorf("log %q: got %d entries, want %d", msg, got, want)
			}
		}
		if got := logs.FilterMessage("handler failed").All(); len(got) > 0 && !strings.Contains(fmt.Sprint(got[0].ContextMap()["error"]), "secret detail") {
			t.Errorf("handler failed log: got %v, want the error's detail", got[0].ContextMap())
		}
	})
}

// A handler that ends because its request was cancelled has not failed: it is logged at
// debug, not as a warning (a page that navigates away cancels its requests all the time).
func TestCancelledHandlerIsNotAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logB, logs := observed()
		a, _ := startPair(t, Options{}, Options{Logger: logB}, func(p *Peer) {
			p.Handle("wait", func(ctx context.Context, req *Request) (any, error) {
				<-ctx.Done()
				return nil, fmt.Errorf("waiting: %w", ctx.Err())
			})
		})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- a.Call(ctx, "wait", nil, nil) }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		synctest.Wait()
		if n := logs.FilterMessage("handler failed").Len(); n != 0 {
			t.Errorf("%d \"handler failed\" warnings for a cancelled request", n)
		}
		if n := logs.FilterMessage("handler cancelled").Len(); n != 1 {
			t.Errorf("%d \"handler cancelled\" entries, want 1", n)
		}
	})
}

func TestCallBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ca, cb := Pipe()
		a, b := NewPeer(ca, Options{}), NewPeer(cb, Options{})
		setupHandlers(b)
		b.Start()
		errc := make(chan error, 1)
		var sum int
		go func() { errc <- a.Call(context.Background(), "add", map[string]int{"a": 1, "b": 1}, &sum) }()
		synctest.Wait()
		a.Start()
		if err := <-errc; err != nil || sum != 2 {
			t.Errorf("got %d, %v, want 2, nil", sum, err)
		}
		a.Close(nil)
		if err := b.Wait(); !errors.Is(err, io.EOF) {
			t.Errorf("b.Wait: got %v, want io.EOF", err)
		}
		if err := a.Wait(); err != ErrClosed {
			t.Errorf("a.Wait: got %v, want ErrClosed", err)
		}
	})
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"parse error", `{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"binary junk", "\x00\xff", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","id":2,"method":"echo"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}`},
		{"not an object", `"echo"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be a JSON object"}}`},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"method must be a string"}}`},
		{"notification with bad method", `{"jsonrpc":"2.0","method":[]}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"method must be a string"}}`},
		{"missing jsonrpc", `{"id":9,"method":"echo"}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"jsonrpc must be \"2.0\""}}`},
		{"bad id", `{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}`},
		// MCP and JSON Schema's "integer": an id with a fraction is no id (not echoed).
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"echo","params":[1]}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}`},
		{"fractional id in exponent form", `{"jsonrpc":"2.0","id":15e-1,"method":"echo","params":[1]}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}`},
		{"bool id", `{"jsonrpc":"2.0","id":false,"method":"echo","params":[1]}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}`},
		// Integers are echoed as written, whatever their size or spelling.
		{"huge integer id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"echo","params":[1]}`,
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":[1]}`},
		{"integer id with a zero fraction", `{"jsonrpc":"2.0","id":-2.50e1,"method":"echo","params":[1]}`,
			`{"jsonrpc":"2.0","id":-2.50e1,"result":[1]}`},
		{"params not structured", `{"jsonrpc":"2.0","id":"p","method":"echo","params":3}`,
			`{"jsonrpc":"2.0","id":"p","error":{"code":-32600,"message":"params must be an object or an array"}}`},
		{"neither request nor response", `{"jsonrpc":"2.0","id":4}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC request or response"}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found"}}`},
	}
	synctest.Test(t, func(t *testing.T) {
		log, logs := observed()
		_, raw := startRaw(t, Options{Logger: log}, nil, setupHandlers)
		for _, tt := range tests {
			raw.send(tt.in)
			if got := raw.recv(); got != tt.want {
				t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
			}
		}
		// None of these is answered; the next message read is the answer to the echo.
		for _, in := range []string{
			`{"jsonrpc":"2.0","method":"unknown/notification"}`,
			`{"jsonrpc":"2.0","id":99,"result":1}`,
			`{"jsonrpc":"2.0","id":"1","result":1}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			`{"jsonrpc":"2.0","id":7,"result":1,"error":{"code":1,"message":"x"}}`,
		} {
			raw.send(in)
		}
		raw.send(`{"jsonrpc":"2.0","id":10,"method":"echo","params":[true]}`)
		raw.expect(`{"jsonrpc":"2.0","id":10,"result":[true]}`)
		for msg, want := range map[string]int{
			"response to an unknown request dropped": 2,
			"the peer reported an error":             1,
			"invalid response dropped":               1,
			"notification ignored":                   1,
		} {
			if got := logs.FilterMessage(msg).Len(); got != want {
				t.Errorf("log %q: got %d entries, want %d", msg, got, want)
			}
		}
	})
}

// callAsync runs Call in a goroutine; the returned channel yields its error.
func callAsync(ctx context.Context, p *Peer, method string, result any) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- p.Call(ctx, method, nil, result) }()
	return errc
}

func TestResponseMatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, raw := startRaw(t, Options{}, nil, nil)
		var got string
		errc := callAsync(context.Background(), p, "m", &got)
		raw.expect(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
		raw.send(`{"jsonrpc":"2.0","id":"1","result":"wrong: a string id is not ours"}`)
		raw.send(`{"jsonrpc":"2.0","id":2,"result":"wrong: not pending"}`)
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("call returned early: %v, %q", err, got)
		default:
		}
		raw.send(`{"jsonrpc":"2.0","id":1,"result":"right"}`)
		if err := <-errc; err != nil || got != "right" {
			t.Errorf("got %q, %v, want \"right\", nil", got, err)
		}

		errc = callAsync(context.Background(), p, "m", nil)
		raw.expect(`{"jsonrpc":"2.0","id":2,"method":"m"}`)
		raw.send(`{"jsonrpc":"2.0","id":2,"result":1,"error":{"code":1,"message":"x"}}`)
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "invalid response") {
			t.Errorf("malformed response: got %v, want an invalid response error", err)
		}
	})
}

func TestCallContextEnds(t *testing.T) {
	errUser := errors.New("user stopped")
	tests := []struct {
		name     string
		ctx      func() (context.Context, func())
		wantErr  []error
		reason   string
		duration time.Duration // fake time until Call returns
	}{
		{"cancel with cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(errUser) }
		}, []error{context.Canceled, errUser}, "user stopped", 0},
		{"cancel", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
		}, []error{context.Canceled}, "cancelled", 0},
		{"ctx deadline", func() (context.Context, func()) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = cancel
			return ctx, nil
		}, []error{context.DeadlineExceeded}, "timeout", 5 * time.Second},
		{"default call timeout", func() (context.Context, func()) {
			return context.Background(), nil
		}, []error{context.DeadlineExceeded}, "timeout", DefaultCallTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p, raw := startRaw(t, Options{}, nil, nil)
				ctx, cancel := tt.ctx()
				start := time.Now()
				var elapsed time.Duration
				errc := make(chan error, 1)
				go func() {
					err := p.Call(ctx, "slow", nil, nil)
					elapsed = time.Since(start)
					errc <- err
				}()
				raw.expect(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
				if cancel != nil {
					cancel()
				}
				err := <-errc
				for _, want := range tt.wantErr {
					if !errors.Is(err, want) {
						t.Errorf("got %v, want it to wrap %v", err, want)
					}
				}
				if errors.Is(err, ErrClosed) {
					t.Errorf("got %v, want no ErrClosed", err)
				}
				if elapsed != tt.duration {
					t.Errorf("fake time: got %v, want %v", elapsed, tt.duration)
				}
				raw.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"` + tt.reason + `"}}`)
			})
		})
	}

	t.Run("already done", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, raw := startRaw(t, Options{}, nil, nil)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := p.Call(ctx, "m", nil, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("Call: got %v, want context.Canceled", err)
			}
			if err := p.Notify(ctx, "m", nil); !errors.Is(err, context.Canceled) {
				t.Errorf("Notify: got %v, want context.Canceled", err)
			}
			if err := p.Notify(context.Background(), "after", nil); err != nil {
				t.Fatal(err)
			}
			raw.expect(`{"jsonrpc":"2.0","method":"after"}`) // nothing was sent before
		})
	})
}

// waitHandler blocks until its ctx ends and answers with the cause.
func waitHandler(started chan<- string) Handler {
	return func(ctx context.Context, req *Request) (any, error) {
		if started != nil {
			started <- string(req.ID)
		}
		<-ctx.Done()
		return context.Cause(ctx).Error(), nil
	}
}

func TestIncomingCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen atomic.Int32
		started := make(chan string, 4)
		_, raw := startRaw(t, Options{}, nil, func(p *Peer) {
			p.Handle("wait", waitHandler(started))
			p.HandleNotification(methodCancelled, func(ctx context.Context, req *Request) { seen.Add(1) })
		})

		raw.send(`{"jsonrpc":"2.0","id":"7","method":"wait"}`)
		<-started
		raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
		raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"8"}}`)
		raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"no id"}}`)
		synctest.Wait()
		raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\u0037","reason":"user left"}}`)
		raw.expect(`{"jsonrpc":"2.0","id":"7","result":"wsrpc: request cancelled by the peer: user left"}`)

		raw.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		<-started
		raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0}}`)
		raw.expect(`{"jsonrpc":"2.0","id":1,"result":"wsrpc: request cancelled by the peer"}`)
		synctest.Wait() // the handler runs after the cancel, which the reply may overtake
		if got := seen.Load(); got != 5 {
			t.Errorf("notifications/cancelled handler: got %d calls, want 5", got)
		}
	})
}

func TestCloseCancelsHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan string, 1)
		var cause error
		p, raw := startRaw(t, Options{}, nil, func(p *Peer) {
			p.Handle("wait", func(ctx context.Context, req *Request) (any, error) {
				started <- ""
				<-ctx.Done()
				cause = context.Cause(ctx)
				return nil, nil
			})
		})
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		<-started
		errBye := errors.New("bye")
		p.Close(errBye)
		if err := p.Wait(); err != errBye {
			t.Errorf("Wait: got %v, want %v", err, errBye)
		}
		// Wait returns after the handler, so cause is set.
		if !errors.Is(cause, ErrClosed) || !errors.Is(cause, errBye) {
			t.Errorf("handler ctx cause: got %v, want ErrClosed and bye", cause)
		}
	})
}

func TestDuplicateRequestID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		_, raw := startRaw(t, Options{}, nil, func(p *Peer) {
			p.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
				<-release
				return "done", nil
			})
			setupHandlers(p)
		})
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[]}`)
		raw.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"duplicate request id"}}`)
		raw.send(`{"jsonrpc":"2.0","id":"1","method":"echo","params":["a string id is another id"]}`)
		raw.expect(`{"jsonrpc":"2.0","id":"1","result":["a string id is another id"]}`)
		close(release)
		raw.expect(`{"jsonrpc":"2.0","id":1,"result":"done"}`)
		// The id is free as soon as its reply is seen.
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[2]}`)
		raw.expect(`{"jsonrpc":"2.0","id":1,"result":[2]}`)
	})
}

func TestMaxHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var running atomic.Int32
		_, raw := startRaw(t, Options{MaxHandlers: 2}, nil, func(p *Peer) {
			p.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
				running.Add(1)
				defer running.Add(-1)
				<-release
				return string(req.ID), nil
			})
		})
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
		raw.send(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
		raw.send(`{"jsonrpc":"2.0","id":3,"method":"hold"}`)
		raw.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"too many concurrent requests"}}`)
		release <- struct{}{}
		first := raw.recv()
		if first != `{"jsonrpc":"2.0","id":1,"result":"1"}` && first != `{"jsonrpc":"2.0","id":2,"result":"2"}` {
			t.Errorf("got %s, want the answer to 1 or 2", first)
		}
		raw.send(`{"jsonrpc":"2.0","id":4,"method":"hold"}`)
		synctest.Wait()
		if got := running.Load(); got != 2 {
			t.Errorf("running handlers: got %d, want 2", got)
		}
		close(release)
		raw.recv()
		raw.recv()
	})
}

func TestNotificationsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, logs := observed()
		var got []int
		_, raw := startRaw(t, Options{Logger: log}, nil, func(p *Peer) {
			p.HandleNotification("note", func(ctx context.Context, req *Request) {
				var n struct{ N int }
				if err := json.Unmarshal(req.Params, &n); err != nil || req.ID != nil {
					t.Errorf("note: got %s, id %s, err %v", req.Params, req.ID, err)
				}
				got = append(got, n.N)
			})
			setupHandlers(p)
		})
		const n = 20
		for i := range n {
			raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, i))
		}
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[]}`)
		raw.expect(`{"jsonrpc":"2.0","id":1,"result":[]}`)
		// Notifications run in the read goroutine, so all are handled before the echo.
		if len(got) != n {
			t.Fatalf("got %d notifications, want %d", len(got), n)
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("got order %v, want 0..%d", got, n-1)
			}
		}
		if got := logs.Len(); got == 0 {
			t.Errorf("logs: got none, want the debug log of the messages")
		}
	})
}

func TestWaitersReleasedOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var onClose []error
		p, raw := startRaw(t, Options{OnClose: func(err error) { onClose = append(onClose, err) }}, nil, nil)
		const n = 3
		errcs := make([]<-chan error, n)
		for i := range n {
			errcs[i] = callAsync(context.Background(), p, "m", nil)
			raw.recv()
		}
		raw.c.Close()
		for i, errc := range errcs {
			if err := <-errc; !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
				t.Errorf("call %d: got %v, want ErrClosed and io.EOF", i, err)
			}
		}
		<-p.Done()
		err := p.Wait()
		if !errors.Is(err, io.EOF) {
			t.Errorf("Wait: got %v, want io.EOF", err)
		}
		if len(onClose) != 1 || onClose[0] != err {
			t.Errorf("OnClose: got %v, want once with %v", onClose, err)
		}
		if err := p.Call(context.Background(), "m", nil, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("Call after close: got %v, want ErrClosed", err)
		}
		if err := p.Notify(context.Background(), "m", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("Notify after close: got %v, want ErrClosed", err)
		}
	})
}

func TestSlowPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := startRaw(t, Options{SendQueue: 2}, nil, nil)
		sent := 0
		var err error
		for range 10 {
			if err = p.Notify(context.Background(), "n", nil); err != nil {
				break
			}
			sent++
			synctest.Wait() // let the write goroutine take what it can
		}
		// One message is being written (the other end never reads) and two are queued.
		if sent != 3 {
			t.Errorf("sent: got %d, want 3", sent)
		}
		if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrSlowPeer) {
			t.Errorf("Notify: got %v, want ErrClosed and ErrSlowPeer", err)
		}
		if err := p.Wait(); err != ErrSlowPeer {
			t.Errorf("Wait: got %v, want ErrSlowPeer", err)
		}
	})
}

// TestNotifyWhenRoom: a burst of reports the peer makes itself (the agent's tool_rejected
// events) waits for room instead of filling the send queue: a remote end that reads, if
// slowly, is never dropped for it, and the other half of the queue stays free for replies.
// The same burst with Notify drops it (ErrSlowPeer), and a remote end that stops reading
// still ends a waiting NotifyWhenRoom.
func TestNotifyWhenRoom(t *testing.T) {
	const burst = 100
	run := func(t *testing.T, notify func(p *Peer) error) (sent, got int, err error) {
		var n atomic.Int32
		a, b := Pipe()
		p := NewPeer(a, Options{SendQueue: 8, PingInterval: -1})
		slow := NewPeer(b, Options{PingInterval: -1})
		slow.HandleNotification("n", func(context.Context, *Request) {
			time.Sleep(time.Millisecond) // reads, but slower than the burst is made
			n.Add(1)
		})
		setupHandlers(slow)
		p.Start()
		slow.Start()
		for sent < burst {
			if err = notify(p); err != nil {
				break
			}
			sent++
		}
		if err == nil { // the queue is not full: a call is answered meanwhile
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			var echo []int
			if cerr := p.Call(ctx, "echo", []int{7}, &echo); cerr != nil || len(echo) != 1 || echo[0] != 7 {
				t.Errorf("call after the burst: got %v %v, want [7]", echo, cerr)
			}
			cancel()
		}
		synctest.Wait()
		got = int(n.Load())
		p.Close(nil)
		slow.Close(nil)
		p.Wait()
		slow.Wait()
		return sent, got, err
	}
	t.Run("Notify drops a slow reader", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			_, _, err := run(t, func(p *Peer) error { return p.Notify(context.Background(), "n", nil) })
			if !errors.Is(err, ErrSlowPeer) {
				t.Errorf("got %v, want ErrSlowPeer", err)
			}
		})
	})
	t.Run("NotifyWhenRoom waits for it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			sent, got, err := run(t, func(p *Peer) error { return p.NotifyWhenRoom(context.Background(), "n", nil) })
			if err != nil || sent != burst || got != burst {
				t.Errorf("got %d sent, %d received, error %v; want %d, %d, nil", sent, got, err, burst, burst)
			}
		})
	})
	t.Run("a reader that stops ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, _ := startRaw(t, Options{SendQueue: 4}, nil, nil) // the other end never reads
			errc := make(chan error, 1)
			go func() {
				for {
					if err := p.NotifyWhenRoom(context.Background(), "n", nil); err != nil {
						errc <- err
						return
					}
				}
			}()
			synctest.Wait() // it waits for room that never comes
			select {
			case err := <-errc:
				t.Fatalf("NotifyWhenRoom returned %v while the queue is only half full", err)
			default:
			}
			p.Close(errors.New("write timed out"))
			if err := <-errc; !errors.Is(err, ErrClosed) {
				t.Errorf("got %v, want ErrClosed", err)
			}
		})
	})
	t.Run("ctx ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, _ := startRaw(t, Options{SendQueue: 4}, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			var err error
			for range 10 {
				if err = p.NotifyWhenRoom(ctx, "n", nil); err != nil {
					break
				}
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want DeadlineExceeded", err)
			}
			select {
			case <-p.Done():
				t.Errorf("the peer ended: %v", p.Wait())
			default:
			}
		})
	})
}

func TestRateLimit(t *testing.T) {
	const limited = `{"jsonrpc":"2.0","id":%d,"error":{"code":-32029,"message":"rate limited"}}`
	t.Run("refuse then close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var notes atomic.Int32
			var sc *statusConn
			p, raw := startRaw(t, Options{RateLimit: 1, RateBurst: 2},
				func(c MessageConn) MessageConn { sc = &statusConn{MessageConn: c}; return sc },
				func(p *Peer) {
					setupHandlers(p)
					p.HandleNotification("note", func(context.Context, *Request) { notes.Add(1) })
				})
			raw.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[]}`)
			raw.expect(`{"jsonrpc":"2.0","id":1,"result":[]}`)
			raw.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[]}`)
			raw.expect(`{"jsonrpc":"2.0","id":2,"result":[]}`)
			raw.send(`{"jsonrpc":"2.0","id":3,"method":"echo","params":[]}`)
			raw.expect(fmt.Sprintf(limited, 3))
			raw.send(`{"jsonrpc":"2.0","method":"note"}`) // dropped
			time.Sleep(time.Second)                       // one token back
			raw.send(`{"jsonrpc":"2.0","id":4,"method":"echo","params":[]}`)
			raw.expect(`{"jsonrpc":"2.0","id":4,"result":[]}`)
			if got := notes.Load(); got != 0 {
				t.Errorf("notifications handled over the limit: got %d, want 0", got)
			}
			// Two refusals so far; the 20th (10×burst) closes the peer.
			replies := 0
			for id := 5; id < 100; id++ {
				raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[]}`, id))
				b, err := raw.c.ReadMessage()
				if err != nil {
					break
				}
				if got, want := string(b), fmt.Sprintf(limited, id); got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
				replies++
			}
			if replies != 17 {
				t.Errorf("rate-limited replies before closing: got %d, want 17", replies)
			}
			if err := p.Wait(); err != ErrRateLimited {
				t.Errorf("Wait: got %v, want ErrRateLimited", err)
			}
			if code, reason := sc.status(); code != 1008 || reason != "rate limit exceeded" {
				t.Errorf("close status: got %d %q, want 1008 \"rate limit exceeded\"", code, reason)
			}
		})
	})
	t.Run("calm down forgives", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, raw := startRaw(t, Options{RateLimit: 1}, nil, setupHandlers) // burst 1: closes at 10 refusals
			for round := range 3 {
				raw.send(`{"jsonrpc":"2.0","id":0,"method":"echo","params":[]}`)
				raw.expect(`{"jsonrpc":"2.0","id":0,"result":[]}`)
				for id := 1; id <= 9; id++ {
					raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, id))
					raw.expect(fmt.Sprintf(limited, id))
				}
				time.Sleep(time.Second) // the bucket is full again
				select {
				case <-p.Done():
					t.Fatalf("round %d: peer closed after 9 refusals and a pause: %v", round, p.Wait())
				default:
				}
			}
		})
	})
}

func TestKeepAlive(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration
		failAt   int
		sleep    time.Duration
		want     int
	}{
		{"default interval", 0, 0, 3*DefaultPingInterval + time.Millisecond, 3},
		{"custom interval", time.Second, 0, 10*time.Second + time.Millisecond, 10},
		{"off", -1, 0, time.Hour, 0},
		{"ping fails", time.Second, 2, time.Hour, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var pc *pingConn
				p, _ := startRaw(t, Options{PingInterval: tt.interval},
					func(c MessageConn) MessageConn { pc = &pingConn{MessageConn: c, failAt: tt.failAt}; return pc }, nil)
				time.Sleep(tt.sleep)
				if got := pc.count(); got != tt.want {
					t.Errorf("pings: got %d, want %d", got, tt.want)
				}
				if tt.failAt > 0 {
					select {
					case <-p.Done():
						if err := p.Wait(); !errors.Is(err, errPingFailed) {
							t.Errorf("Wait: got %v, want the ping error", err)
						}
					default:
						t.Error("peer still open after a failed ping")
					}
				}
			})
		})
	}
}

func TestCloseWithStatus(t *testing.T) {
	t.Run("flushes then closes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var sc *statusConn
			p, raw := startRaw(t, Options{}, func(c MessageConn) MessageConn { sc = &statusConn{MessageConn: c}; return sc }, nil)
			for i := range 3 {
				if err := p.Notify(context.Background(), "n", []int{i}); err != nil {
					t.Fatal(err)
				}
			}
			p.CloseWithStatus(1001, "server shutting down")
			p.CloseWithStatus(1011, "second call ignored")
			for i := range 3 {
				raw.expect(fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":[%d]}`, i))
			}
			if _, err := raw.c.ReadMessage(); err != io.EOF {
				t.Errorf("after the queue: got %v, want io.EOF", err)
			}
			err := p.Wait()
			if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "1001") {
				t.Errorf("Wait: got %v, want ErrClosed with status 1001", err)
			}
			if code, reason := sc.status(); code != 1001 || reason != "server shutting down" {
				t.Errorf("status: got %d %q, want 1001 \"server shutting down\"", code, reason)
			}
		})
	})
	t.Run("before start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, _ := Pipe()
			sc := &statusConn{MessageConn: a}
			p := NewPeer(sc, Options{})
			p.CloseWithStatus(1001, "bye")
			p.Start()
			if err := p.Wait(); !errors.Is(err, ErrClosed) {
				t.Errorf("Wait: got %v, want ErrClosed", err)
			}
			if code, _ := sc.status(); code != 1001 {
				t.Errorf("status: got %d, want 1001", code)
			}
		})
	})
	t.Run("plain conn", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, raw := startRaw(t, Options{}, nil, nil)
			p.CloseWithStatus(1001, "bye")
			if _, err := raw.c.ReadMessage(); err != io.EOF {
				t.Errorf("got %v, want io.EOF", err)
			}
		})
	})
}

func TestCloseIdempotent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		a, _ := Pipe()
		p := NewPeer(a, Options{OnClose: func(error) { calls.Add(1) }})
		p.Start()
		causes := make([]error, 8)
		var wg sync.WaitGroup
		for i := range causes {
			causes[i] = fmt.Errorf("cause %d", i)
			wg.Go(func() { p.Close(causes[i]) })
		}
		wg.Go(func() { p.CloseWithStatus(1001, "x") })
		wg.Wait()
		err := p.Wait()
		found := strings.Contains(err.Error(), "1001")
		for _, c := range causes {
			found = found || err == c
		}
		if !found {
			t.Errorf("Wait: got %v, want one of the causes", err)
		}
		p.Close(errors.New("late"))
		if got := p.Wait(); got != err {
			t.Errorf("Wait again: got %v, want %v", got, err)
		}
		if got := calls.Load(); got != 1 {
			t.Errorf("OnClose calls: got %d, want 1", got)
		}
	})
}

func TestCloseBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := Pipe()
		var calls atomic.Int32
		p := NewPeer(a, Options{OnClose: func(error) { calls.Add(1) }})
		p.Close(nil)
		p.Start()
		if err := p.Wait(); err != ErrClosed {
			t.Errorf("Wait: got %v, want ErrClosed", err)
		}
		if _, err := b.ReadMessage(); err != io.EOF {
			t.Errorf("other end: got %v, want io.EOF", err)
		}
		if got := calls.Load(); got != 1 {
			t.Errorf("OnClose calls: got %d, want 1", got)
		}
	})
}

func TestHandleAfterStartPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := startRaw(t, Options{}, nil, nil)
		for name, register := range map[string]func(){
			"Handle":             func() { p.Handle("x", nil) },
			"HandleNotification": func() { p.HandleNotification("x", nil) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s after Start: got no panic, want one", name)
					}
				}()
				register()
			}()
		}
	})
}

func TestWriteErrorEndsPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errDisk := errors.New("disk on fire")
		p, _ := startRaw(t, Options{}, func(c MessageConn) MessageConn { return &failConn{MessageConn: c, err: errDisk} }, nil)
		if err := p.Notify(context.Background(), "n", nil); err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(); !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "write") {
			t.Errorf("Wait: got %v, want the write error", err)
		}
	})
}

func TestConcurrentCallsBothWays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each side's handler calls the other side back: only possible because handlers do
		// not run in the read goroutine.
		ca, cb := Pipe()
		a, b := NewPeer(ca, Options{}), NewPeer(cb, Options{})
		for _, pair := range [][2]*Peer{{a, b}, {b, a}} {
			self, other := pair[0], pair[1]
			self.Handle("double", func(ctx context.Context, req *Request) (any, error) {
				var n []int
				if err := json.Unmarshal(req.Params, &n); err != nil || len(n) != 1 {
					return nil, NewError(CodeInvalidParams, "want [n]")
				}
				return 2 * n[0], nil
			})
			self.Handle("ask", func(ctx context.Context, req *Request) (any, error) {
				var n int
				err := other.Call(ctx, "double", req.Params, &n)
				return n, err
			})
		}
		a.Start()
		b.Start()
		var wg sync.WaitGroup
		for i := range 50 {
			caller := a
			if i%2 == 1 {
				caller = b
			}
			wg.Go(func() {
				var got int
				if err := caller.Call(context.Background(), "ask", []int{i}, &got); err != nil || got != 2*i {
					t.Errorf("ask %d: got %d, %v, want %d", i, got, err, 2*i)
				}
			})
		}
		wg.Wait()
		a.Close(nil)
		a.Wait()
		b.Wait()
	})
}

func TestReplyThen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var afterErr atomic.Int32
		_, raw := startRaw(t, Options{}, nil, func(p *Peer) {
			p.Handle("session", func(ctx context.Context, req *Request) (any, error) {
				return ReplyThen(map[string]int{"seq": 2}, func() {
					for i := range 2 {
						_ = p.Notify(context.Background(), "agent/event", []int{i})
					}
				}), nil
			})
			p.Handle("failing", func(ctx context.Context, req *Request) (any, error) {
				return ReplyThen(nil, func() { afterErr.Add(1) }), NewError(-32002, "session not found")
			})
			setupHandlers(p)
		})
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"session"}`)
		raw.expect(`{"jsonrpc":"2.0","id":1,"result":{"seq":2}}`)
		raw.expect(`{"jsonrpc":"2.0","method":"agent/event","params":[0]}`)
		raw.expect(`{"jsonrpc":"2.0","method":"agent/event","params":[1]}`)

		raw.send(`{"jsonrpc":"2.0","id":2,"method":"failing"}`)
		raw.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"session not found"}}`)
		raw.send(`{"jsonrpc":"2.0","id":4,"method":"echo","params":[]}`) // still serving
		raw.expect(`{"jsonrpc":"2.0","id":4,"result":[]}`)
		if got := afterErr.Load(); got != 0 {
			t.Errorf("After ran %d times after an error, want 0", got)
		}
	})
}
